// Real streams (test/fixtures/real/, sources in its README) replayed through runSearch from a loopback
// server, byte for byte: whole, in small odd-sized writes, and gzipped in odd-sized writes. Each must give
// the result a user should see, the same whichever way the bytes arrived.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { Transport } from '../../src/http/transport.js';
import { runSearch, type SearchResult } from '../../src/stream/index.js';
import { SSE_HEADERS, serve, sse, transportFor, writeCut, type TestServer } from './fixtures.js';

const REAL = new URL('../fixtures/real/', import.meta.url);
const real = (file: string): Buffer => readFileSync(new URL(file, REAL));

let server: TestServer | undefined;
let transport: Transport | undefined;

afterEach(async () => {
  await transport?.close();
  await server?.close();
  server = undefined;
  transport = undefined;
});

type Delivery = 'whole' | 'odd writes' | 'gzip, odd writes';
const DELIVERIES: Delivery[] = ['whole', 'odd writes', 'gzip, odd writes'];

/** Cuts every 5, 37, 11, then 61 bytes (repeating): splits land inside field names, UTF-8 and line ends. */
function oddCuts(length: number): number[] {
  const cuts: number[] = [];
  const steps = [5, 37, 11, 61];
  for (let at = 0, i = 0; at < length; i++) cuts.push((at += steps[i % steps.length]!));
  return cuts.filter((c) => c < length);
}

async function replay(body: Buffer, delivery: Delivery, status = 200, headers: Record<string, string> = SSE_HEADERS): Promise<SearchResult> {
  server = await serve(async (_req, res) => {
    const gzip = delivery === 'gzip, odd writes';
    const bytes = gzip ? gzipSync(body) : body;
    res.writeHead(status, gzip ? { ...headers, 'content-encoding': 'gzip' } : headers);
    if (delivery === 'whole') res.end(bytes);
    else {
      await writeCut(res, bytes, oddCuts(bytes.length));
      res.end();
    }
  });
  transport = transportFor(server.url);
  return runSearch(transport, { query: 'test' }, { gzip: true });
}

/** What a user reads of a result: no timings or byte counts. */
function seen(r: SearchResult) {
  return {
    verdict: r.verdict,
    exhaustive: r.exhaustive,
    done: r.done,
    matchCount: r.matchCount,
    counted: r.counted,
    matchObjects: r.matchObjects,
    invalidMatches: r.invalidMatches,
    repositories: r.repositories,
    files: r.files,
    repositoriesCount: r.repositoriesCount,
    skipped: r.skipped.map((s) => s.reason),
    alerts: r.alerts.map((a) => a.title),
    errors: r.errors,
    failure: r.failure && { kind: r.failure.kind, exitCode: r.failure.exitCode },
  };
}

const STREAMS: Array<[string, Partial<ReturnType<typeof seen>> & Record<string, unknown>]> = [
  [
    'docs-stream-example.sse',
    { verdict: 'limit_hit', exhaustive: false, done: true, matchCount: 1, counted: 1, repositories: 1, files: 1, repositoriesCount: 1, skipped: ['shard-match-limit', 'excluded-archive'], errors: [] },
  ],
  // `done` with `data: null`, no progress: the matches are all there is.
  ['srccli-testsearchstream.sse', { verdict: 'complete', done: true, matchObjects: 5, invalidMatches: 0, errors: [], failure: undefined }],
  // Null lists (`skipped`, `chunkMatches`, `symbols`, `ranges`) are empty lists, not malformed events.
  ['srccli-testdecoder.sse', { verdict: 'error', done: true, matchObjects: 4, invalidMatches: 0, alerts: ['alert'], errors: ['server error: error'] }],
  ['server-testfrontendclient.sse', { verdict: 'error', done: true, matchObjects: 5, invalidMatches: 0, alerts: ['alert'], errors: ['server error: error'] }],
  // A skipped reason without severity or title is still a limit.
  ['pi-agent-content-progress.sse', { verdict: 'limit_hit', exhaustive: false, done: true, matchCount: 2, repositories: 1, files: 1, skipped: ['shard-match-limit', 'excluded-archive'], errors: [] }],
  ['error-no-query-found.sse', { verdict: 'error', done: true, matchObjects: 0, errors: ['server error: no query found'] }],
  // A query that does not parse: an alert, then done, with neither progress nor matches.
  ['alert-unable-to-process.sse', { verdict: 'error', done: true, alerts: ['Unable To Process Query'], errors: [] }],
];

describe('real streams', () => {
  it.each(STREAMS)('%s', async (file, expected) => {
    const results: Array<ReturnType<typeof seen>> = [];
    for (const delivery of DELIVERIES) {
      const result = await replay(real(`stream/${file}`), delivery);
      results.push(seen(result));
      await transport?.close();
      await server?.close();
      server = undefined;
      transport = undefined;
    }
    expect(results[0]).toMatchObject(expected);
    expect(results[1], 'odd writes').toEqual(results[0]);
    expect(results[2], 'gzip, odd writes').toEqual(results[0]);
  });

  it('http-401-private-mode.txt: a plain-text 401 is an HTTP error (exit 3) quoting the server', async () => {
    const result = await replay(real('stream/http-401-private-mode.txt'), 'whole', 401, { 'content-type': 'text/plain; charset=utf-8' });
    expect(seen(result)).toMatchObject({ verdict: 'http_error', done: false, failure: { kind: 'http_status', exitCode: ExitCode.unreachable } });
    expect(result.httpStatus).toBe(401);
    expect(result.failure?.message).toContain('Private mode requires authentication');
  });
});

// A progress golden is one final progress object: served as an intermediate progress, again with
// `done: true`, then `done`, with no `filters` event (so nothing but `skipped` can say it was cut).
const GOLDENS: Array<[string, { verdict: SearchResult['verdict']; exhaustive: boolean }]> = [
  ['timedout100.json', { verdict: 'limit_hit', exhaustive: false }],
  ['all-v1.json', { verdict: 'limit_hit', exhaustive: false }],
  ['all-v2.json', { verdict: 'limit_hit', exhaustive: false }],
  ['traced.json', { verdict: 'complete', exhaustive: true }],
  ['zeroresults.json', { verdict: 'complete', exhaustive: true }],
];

describe('real progress goldens', () => {
  it.each(GOLDENS)('%s', async (file, expected) => {
    const progress = JSON.parse(real(`progress-golden/${file}`).toString('utf8')) as Record<string, unknown>;
    const body = Buffer.from(sse('progress', progress) + sse('progress', { ...progress, done: true }) + sse('done', {}));
    const result = await replay(body, 'odd writes');
    expect(result).toMatchObject({ ...expected, done: true, matchCount: progress.matchCount });
    expect(result.skipped).toHaveLength((progress.skipped as unknown[]).length);
    if (progress.trace) expect(result.trace).toBe(progress.trace);
  });

  it('an unknown skipped reason with a warning severity is not exhaustive; with info it is', async () => {
    for (const [severity, verdict] of [['warn', 'limit_hit'], ['info', 'complete']] as const) {
      const progress = { done: true, matchCount: 0, skipped: [{ reason: 'some-new-reason', title: 't', message: 'm', severity }] };
      const result = await replay(Buffer.from(sse('progress', progress) + sse('done', {})), 'whole');
      expect(result.verdict, severity).toBe(verdict);
      expect(result.exhaustive, severity).toBe(verdict === 'complete');
      await transport?.close();
      await server?.close();
      server = undefined;
      transport = undefined;
    }
  });
});
