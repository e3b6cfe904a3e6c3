import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { headersFor } from '../../src/config/credentials.js';
import { Transport } from '../../src/http/transport.js';
import { runSearch } from '../../src/stream/index.js';
import { SSE_HEADERS, exhaustiveFilters, serve, sse, transportFor, type Handler, type TestServer } from './fixtures.js';

// What a search's figures measure, against a server on port 0 that waits in known ways: `durationMs` is the
// server's own clock as it reported it; `wallMs` and the times to the first event and match are dsbench's,
// from sending the request that was answered. Bounds are taken from the server's side of the same process
// (performance.now()) in causal order, so a loaded machine makes them looser, never wrong.

let server: TestServer | undefined;
let transport: Transport | undefined;

afterEach(async () => {
  await transport?.close();
  await server?.close();
  server = transport = undefined;
});

/** Answers with a stream whose `done` comes `holdMs` after the request arrived, reporting `durationMs`. */
function slowStream(holdMs: number, durationMs: number): Handler {
  return async (_req, res) => {
    res.writeHead(200, SSE_HEADERS);
    res.write(sse('matches', [{ type: 'repo', repositoryID: 1, repository: 'github.com/a/b' }]));
    await sleep(holdMs);
    res.end(sse('filters', exhaustiveFilters) + sse('progress', { done: true, matchCount: 1, durationMs, skipped: [] }) + sse('done', {}));
  };
}

describe('search timing', () => {
  it('keeps the server duration as reported and times the wall clock across the wait it saw', async () => {
    server = await serve(slowStream(120, 7));
    transport = transportFor(server.url);
    const sentBefore = performance.now();
    const r = await runSearch(transport, { query: 'x' });
    const end = performance.now();
    expect(r.verdict).toBe('complete');
    expect(r.durationMs).toBe(7);
    // The server held the stream 120 ms after it arrived (a timer may fire a millisecond early).
    expect(r.wallMs).toBeGreaterThanOrEqual(115);
    expect(r.wallMs).toBeLessThanOrEqual(end - sentBefore);
    expect(r.timeToFirstMatchMs!).toBeLessThan(r.wallMs);
  });

  it('does not count a retried attempt, nor the wait before the retry, as the search time', async () => {
    let refusedAt = 0;
    const stream = slowStream(100, 90);
    server = await serve(async (req, res, n) => {
      if (n > 1) return stream(req, res, n);
      // A slow refusal: everything before it ends is the first attempt's.
      await sleep(200);
      refusedAt = performance.now();
      res.writeHead(503, { 'retry-after': '0' }).end('busy');
    });
    transport = transportFor(server.url);
    const r = await runSearch(transport, { query: 'x' });
    const end = performance.now();
    expect(r.verdict).toBe('complete');
    expect(server.received).toHaveLength(2);
    // The answered attempt went out after the 503 arrived, so its time is within what followed it.
    expect(r.wallMs).toBeLessThanOrEqual(end - refusedAt);
    expect(r.timeToFirstEventMs!).toBeLessThanOrEqual(end - refusedAt);
    expect(r.wallMs).toBeGreaterThanOrEqual(95);
  });

  it('does not count the wait for the group commit before the request goes out', async () => {
    let committedAt = 0;
    server = await serve(slowStream(50, 40));
    transport = new Transport({
      endpoint: server.url,
      headers: headersFor({ endpoint: server.url, token: 'sgp_0123456789abcdef', extraHeaders: {} }, 'stream'),
      beforeSend: async () => {
        await sleep(200);
        committedAt = performance.now();
      },
    });
    const r = await runSearch(transport, { query: 'x' });
    const end = performance.now();
    expect(r.verdict).toBe('complete');
    expect(r.wallMs).toBeLessThanOrEqual(end - committedAt);
    expect(r.wallMs).toBeGreaterThanOrEqual(45);
  });
});
