import { gzipSync } from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors/errors.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { Transport } from '../../src/http/transport.js';
import { runSearch, SearchResultSchema, type SearchOptions, type SearchResult } from '../../src/stream/index.js';
import {
  SSE_HEADERS,
  commitMatch,
  contentMatch,
  exhaustiveFilters,
  finalProgress,
  lineMatch,
  pathMatch,
  prng,
  progress,
  randomCuts,
  repoMatch,
  serve,
  sse,
  symbolMatch,
  transportFor,
  writeCut,
  type Handler,
  type TestServer,
} from './fixtures.js';

let server: TestServer | undefined;
let transport: Transport | undefined;

afterEach(async () => {
  await transport?.close();
  await server?.close();
  server = undefined;
  transport = undefined;
});

async function search(handler: Handler, options: SearchOptions = {}, query = 'retry count:all'): Promise<SearchResult> {
  server = await serve(handler);
  transport = transportFor(server.url);
  const result = await runSearch(transport, { query }, options);
  expect(SearchResultSchema.parse(result)).toEqual(result);
  return result;
}

/** A handler that sends these events (already framed) and ends the response. */
const sends =
  (...events: string[]): Handler =>
  (_req, res) => {
    res.writeHead(200, SSE_HEADERS).end(events.join(''));
  };

const normalEnd = (count: number) => [sse('filters', exhaustiveFilters), sse('progress', finalProgress(count)), sse('done', {})];

describe('runSearch: request', () => {
  it('sends the parameters, the stream headers and the credentials', async () => {
    await search(sends(...normalEnd(0)));
    server = server!;
    const sent = server.received[0]!;
    const url = new URL(sent.url, 'http://x');
    expect(url.pathname).toBe('/.api/search/stream');
    expect(Object.fromEntries(url.searchParams)).toEqual({ q: 'retry count:all', v: 'V3' });
    expect(sent.headers.accept).toBe('text/event-stream');
    expect(sent.headers['accept-encoding']).toBe('gzip');
    expect(sent.headers.authorization).toBe('token sgp_0123456789abcdef');
    expect(sent.headers['user-agent']).toMatch(/^dsbench\//);
  });

  it('maps every parameter to its wire name', async () => {
    server = await serve(sends(...normalEnd(0)));
    transport = transportFor(server.url);
    await runSearch(
      transport,
      { query: 'x', version: 'V2', patternType: 'regexp', chunkMatches: true, contextLines: 2, maxLineLen: 80, display: 10 },
      { gzip: false },
    );
    const sent = server.received[0]!;
    expect(Object.fromEntries(new URL(sent.url, 'http://x').searchParams)).toEqual({
      q: 'x',
      v: 'V2',
      t: 'regexp',
      cm: 'true',
      cl: '2',
      'max-line-len': '80',
      display: '10',
    });
    expect(sent.headers['accept-encoding']).toBeUndefined();
  });

  it.each([
    [{ query: '  ' }, {}],
    [{ query: 'x', patternType: 'fuzzy' as 'regexp' }, {}],
    [{ query: 'x', contextLines: 2 }, {}],
    [{ query: 'x', bogus: 1 } as { query: string }, {}],
    [{ query: 'x' }, { stallTimeoutMs: 0 }],
    [{ query: 'x' }, { maxDistinct: 0 }],
  ])('throws a UsageError for invalid params or options (%j %j)', async (params, options) => {
    transport = transportFor('http://127.0.0.1:9');
    await expect(runSearch(transport, params, options)).rejects.toBeInstanceOf(UsageError);
  });
});

describe('runSearch: verdicts', () => {
  it('complete: done after exhaustive filters, counts by the wire rule', async () => {
    const r = await search(
      sends(
        sse('matches', [contentMatch('a', 'x.go', [2, 1]), lineMatch('a', 'y.go', [2]), pathMatch('b', 'x.go')]),
        sse('progress', progress(6)),
        sse('matches', [repoMatch('c'), symbolMatch('a', 'x.go', 3), commitMatch('a', 2), commitMatch('b', 0)]),
        ...normalEnd(15),
      ),
    );
    expect(r.verdict).toBe('complete');
    expect(r.countedByType).toEqual({ content: 5, path: 1, repo: 1, symbol: 3, commit: 3 });
    expect(r.counted).toBe(13);
    expect(r.matchObjects).toBe(7);
    expect(r.matchCount).toBe(15);
    expect(r.repositories).toBe(3);
    expect(r.files).toBe(3);
    expect(r.repositoriesCount).toBe(2);
    expect(r.exhaustive).toBe(true);
    expect(r.durationMs).toBe(40);
    expect(r.httpStatus).toBe(200);
    expect(r.eventCount).toBe(6);
    expect(r.failure).toBeUndefined();
    expect(r.timeToFirstEventMs!).toBeLessThanOrEqual(r.timeToFirstMatchMs!);
    expect(r.timeToFirstMatchMs!).toBeLessThanOrEqual(r.wallMs);
  });

  it('limit_hit: a skipped reason containing -limit', async () => {
    const skipped = [
      { reason: 'shard-match-limit', title: 'limit', message: 'm', severity: 'info', suggested: { title: 'more', queryExpression: 'count:1000' } },
      { reason: 'shard-timedout', title: 't', message: 'm', severity: 'warn' },
      { reason: 'excluded-fork', title: 'f', message: 'm', severity: 'info' },
    ];
    const r = await search(sends(sse('filters', exhaustiveFilters), sse('progress', finalProgress(1, { skipped })), sse('done', {})));
    expect(r.verdict).toBe('limit_hit');
    expect(r.exhaustive).toBe(false);
    expect(r.skipped.map((s) => s.reason)).toEqual(['shard-match-limit', 'shard-timeout', 'repository-fork']);
    expect(r.skipped[0]!.suggested).toEqual({ title: 'more', queryExpression: 'count:1000' });
  });

  it('limit_hit: older servers say limitHit instead of exhaustive', async () => {
    const filters = [
      { value: 'lang:go', label: 'Go', count: 3, limitHit: false, kind: 'lang' },
      { value: 'repo:x', label: 'x', count: 9, limitHit: true, kind: 'repo' },
    ];
    const r = await search(sends(sse('filters', filters), sse('progress', finalProgress(12)), sse('done', {})));
    expect(r.filters.map((f) => f.exhaustive)).toEqual([true, false]);
    expect(r.verdict).toBe('limit_hit');
  });

  it('only the last filters event counts', async () => {
    const early = [{ value: 'lang:go', label: 'Go', count: 1, exhaustive: false, kind: 'lang' }];
    const r = await search(sends(sse('filters', early), ...normalEnd(0)));
    expect(r.filters).toEqual(exhaustiveFilters);
    expect(r.verdict).toBe('complete');
  });

  it('display: fewer matches returned than found is still complete, and says so', async () => {
    const skipped = [{ reason: 'display', title: 'Display limit hit', message: 'm', severity: 'info' }];
    const r = await search(
      sends(sse('matches', [contentMatch('a', 'x', [2]), contentMatch('a', 'y', [1])]), sse('filters', exhaustiveFilters), sse('progress', finalProgress(500, { skipped })), sse('done', {})),
      {},
    );
    expect(r.verdict).toBe('complete');
    expect(r.displayLimited).toBe(true);
    expect(r.counted).toBe(3);
    expect(r.matchCount).toBe(500);
    expect(r.exhaustive).toBe(true);
  });

  it('display: a server that caps silently is noticed by counted < matchCount', async () => {
    const r = await search(sends(sse('matches', [pathMatch('a', 'x')]), ...normalEnd(1500)));
    expect(r.verdict).toBe('complete');
    expect(r.displayLimited).toBe(true);
  });

  it('error: an error event', async () => {
    const r = await search(sends(sse('error', { message: 'no query found' }), sse('done', {})));
    expect(r.verdict).toBe('error');
    expect(r.errors).toEqual(['server error: no query found']);
  });

  it('error: an alert with neither progress nor matches (the query did not parse)', async () => {
    const alert = { title: 'Unable To Process Query', description: 'bad regexp', proposedQueries: null };
    const r = await search(sends(sse('alert', alert), sse('done', {})));
    expect(r.verdict).toBe('error');
    expect(r.alerts).toEqual([{ title: 'Unable To Process Query', description: 'bad regexp', proposedQueries: [] }]);
  });

  it('an alert after a normal search does not make it an error', async () => {
    const alert = { title: 'Tip', kind: 'info', proposedQueries: [{ query: 'x count:all', description: 'all' }] };
    const r = await search(sends(sse('matches', [pathMatch('a', 'x')]), sse('filters', exhaustiveFilters), sse('progress', finalProgress(1)), sse('alert', alert), sse('done', {})));
    expect(r.verdict).toBe('complete');
    expect(r.alerts[0]).toEqual({ title: 'Tip', kind: 'info', proposedQueries: [{ query: 'x count:all', description: 'all' }] });
  });

  it('error: a malformed event is recorded, the rest still counted', async () => {
    const r = await search(
      sends(
        sse('matches', [pathMatch('a', 'x')]),
        sse('matches', '[{"type":"path","path":"y"'),
        sse('progress', '{"done":false}'),
        sse('matches', [pathMatch('a', 'z')]),
        ...normalEnd(3),
      ),
    );
    expect(r.verdict).toBe('error');
    expect(r.counted).toBe(2);
    expect(r.errors).toHaveLength(2);
    expect(r.errors[0]).toMatch(/^malformed matches event: invalid JSON/);
    expect(r.errors[1]).toMatch(/^malformed progress event: matchCount/);
    expect(r.done).toBe(true);
  });

  it('truncated: the stream ends without done', async () => {
    const r = await search(sends(sse('matches', [pathMatch('a', 'x')]), sse('progress', progress(1))));
    expect(r.verdict).toBe('truncated');
    expect(r.counted).toBe(1);
    expect(r.matchCount).toBe(1);
    expect(r.failure).toEqual({ kind: 'ended_early', message: 'the stream ended before the done event', exitCode: ExitCode.unreachable });
  });

  it('truncated: a 200 that is not an event stream says so', async () => {
    const r = await search((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><title>Sign in</title></html>');
    });
    expect(r.verdict).toBe('truncated');
    expect(r.failure!.message).toContain('content-type "text/html": not an event stream');
  });

  it('truncated: the connection breaks mid-stream, counts kept', async () => {
    const r = await search(async (_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.write(sse('matches', [pathMatch('a', 'x'), pathMatch('a', 'y')]));
      await sleep(10);
      res.socket?.destroy();
    });
    expect(r.verdict).toBe('truncated');
    expect(r.counted).toBe(2);
    expect(r.failure!.kind).toBe('body');
  });

  it('truncated: stall timeout', async () => {
    const r = await search(
      (_req, res) => {
        res.writeHead(200, SSE_HEADERS);
        res.write(sse('matches', [pathMatch('a', 'x')]));
      },
      { stallTimeoutMs: 50 },
    );
    expect(r.verdict).toBe('truncated');
    expect(r.counted).toBe(1);
    expect(r.failure).toEqual({
      kind: 'stall',
      message: 'stall timeout: no data for 50 ms, the stream stopped before the done event',
      exitCode: ExitCode.unreachable,
    });
  });

  it('truncated: overall timeout, even while bytes keep coming', async () => {
    const r = await search(
      async (_req, res) => {
        res.writeHead(200, SSE_HEADERS);
        for (let i = 0; i < 200 && !res.destroyed; i++) {
          res.write(sse('progress', progress(i)));
          await sleep(5);
        }
      },
      { stallTimeoutMs: 1000, timeoutMs: 120 },
    );
    expect(r.verdict).toBe('truncated');
    expect(r.failure!.kind).toBe('timeout');
    expect(r.failure!.message).toBe('overall timeout: no done event within 120 ms');
    // Cut while the server was still sending: its 200 events come at its own pace, slowed as much as the
    // client's timer by a loaded machine, so the contrast holds at any load.
    expect(r.eventCount).toBeGreaterThan(1);
    expect(r.eventCount).toBeLessThan(200);
  });

  it('truncated: overall timeout while waiting for the status', async () => {
    const r = await search(() => undefined, { timeoutMs: 60 });
    expect(r.verdict).toBe('truncated');
    expect(r.failure!.kind).toBe('timeout');
    expect(r.httpStatus).toBeUndefined();
  });

  it('http_error: a plain-text 401 is a status error, never a malformed event', async () => {
    const r = await search((_req, res) => {
      res.writeHead(401, { 'content-type': 'text/plain' }).end('Private mode requires authentication.\n');
    });
    expect(r.verdict).toBe('http_error');
    expect(r.httpStatus).toBe(401);
    expect(r.eventCount).toBe(0);
    expect(r.errors).toEqual([]);
    expect(r.failure!.kind).toBe('http_status');
    expect(r.failure!.exitCode).toBe(ExitCode.unreachable);
    expect(r.failure!.message).toContain('HTTP 401: Private mode requires authentication.');
  });

  it('http_error: a 500 before any event', async () => {
    const r = await search((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error\n');
    });
    expect(r.verdict).toBe('http_error');
    expect(r.httpStatus).toBe(500);
    expect(server!.received).toHaveLength(1);
  });

  it('a 503 is retried by the transport before the stream starts', async () => {
    const r = await search((_req, res, n) => {
      if (n === 1) res.writeHead(503).end('busy');
      else res.writeHead(200, SSE_HEADERS).end(normalEnd(0).join(''));
    });
    expect(r.verdict).toBe('complete');
    expect(server!.received).toHaveLength(2);
  });

  it('http_error: nothing listening', async () => {
    const closed = await serve(() => undefined);
    const url = closed.url;
    await closed.close();
    transport = transportFor(url);
    const r = await runSearch(transport, { query: 'x' });
    expect(r.verdict).toBe('http_error');
    expect(r.httpStatus).toBeUndefined();
    expect(r.failure!.kind).toBe('connection');
    expect(r.failure!.exitCode).toBe(ExitCode.unreachable);
  });
});

describe('runSearch: decoding', () => {
  const body = Buffer.from(
    [
      sse('matches', [contentMatch('github.com/é/中', 'ü.go', [2]), pathMatch('r', 'p')]),
      sse('progress', progress(3)),
      sse('matches', [lineMatch('r', 'q', [1, 1])]),
      ...normalEnd(5),
    ].join(''),
  );

  it('gunzips a gzip body cut at random places', async () => {
    const gz = gzipSync(body);
    const random = prng(3);
    const r = await search(async (_req, res) => {
      res.writeHead(200, { ...SSE_HEADERS, 'content-encoding': 'gzip' });
      await writeCut(res, gz, randomCuts(gz.length, 8, random));
      res.end();
    });
    expect(r.verdict).toBe('complete');
    expect(r.counted).toBe(5);
    expect(r.contentEncoding).toBe('gzip');
    expect(r.bytes).toBe(gz.length);
    expect(r.decodedBytes).toBe(body.length);
  });

  it('reads a plain body cut inside lines, JSON strings and UTF-8 characters', async () => {
    const random = prng(5);
    for (let i = 0; i < 3; i++) {
      const r = await search(async (_req, res) => {
        res.writeHead(200, SSE_HEADERS);
        await writeCut(res, body, randomCuts(body.length, 15, random));
        res.end();
      });
      expect(r.verdict).toBe('complete');
      expect(r.counted).toBe(5);
      expect(r.files).toBe(3);
      await transport!.close();
      await server!.close();
    }
    server = undefined;
    transport = undefined;
  });

  it('counts matches carrying fields it does not know (externalServiceType since 5.7) exactly as without them', async () => {
    const repo = 'github.com/org/repo';
    const matches = [contentMatch(repo, 'a.go', [2, 1]), lineMatch(repo, 'b.ts', [1, 1]), pathMatch(repo, 'c'), repoMatch(repo), symbolMatch(repo, 'd.go', 2), commitMatch(repo, 3)];
    // The field first, last, and with a value of another type, over enough events for the scanner to learn shapes.
    const tagged = (m: Record<string, unknown>, i: number) =>
      i % 3 === 0 ? { externalServiceType: 'github', ...m } : i % 3 === 1 ? { ...m, externalServiceType: 'gitlab' } : { ...m, externalServiceType: null, externalServiceURL: 'https://x' };
    const events = (tag: boolean) => Array.from({ length: 12 }, (_, i) => sse('matches', matches.map((m, j) => (tag ? tagged(m, i + j) : m))));
    const plain = await search(sends(...events(false), ...normalEnd(0)));
    await transport!.close();
    await server!.close();
    const withField = await search(sends(...events(true), ...normalEnd(0)));
    const figures = (r: SearchResult) => ({ verdict: r.verdict, counted: r.counted, countedByType: r.countedByType, matchObjects: r.matchObjects, invalid: r.invalidMatches, unknown: r.unknownMatchTypes, repositories: r.repositories, files: r.files });
    expect(figures(withField)).toEqual(figures(plain));
    expect(withField.invalidMatches).toBe(0);
    expect(plain.counted).toBe(144);
  });

  it('a truncated gzip body is truncated, not an error', async () => {
    const gz = gzipSync(body);
    const r = await search((_req, res) => {
      res.writeHead(200, { ...SSE_HEADERS, 'content-encoding': 'gzip' }).end(gz.subarray(0, gz.length - 30));
    });
    expect(r.verdict).toBe('truncated');
    expect(r.failure!.kind).toBe('body');
  });

  it('refuses an encoding it did not ask for', async () => {
    const r = await search((_req, res) => {
      res.writeHead(200, { ...SSE_HEADERS, 'content-encoding': 'br' }).end('xx');
    });
    expect(r.verdict).toBe('truncated');
    expect(r.failure!.message).toContain('"br"');
    expect(r.failure!.exitCode).toBe(ExitCode.unreachable);
  });

  it('ignores and counts unknown event names and match types', async () => {
    const r = await search(
      sends(
        sse('heartbeat', {}),
        'data: {"unnamed":true}\n\n',
        sse('matches', [{ type: 'diff', x: 1 }, { type: 'future' }, pathMatch('a', 'x')]),
        sse('heartbeat', {}),
        ...normalEnd(1),
      ),
    );
    expect(r.verdict).toBe('complete');
    expect(r.unknownEvents).toEqual({ heartbeat: 2, message: 1 });
    expect(r.unknownMatchTypes).toEqual({ diff: 1, future: 1 });
    expect(r.counted).toBe(1);
  });

  it('stops at an event larger than 10 MB and says why', async () => {
    const r = await search(async (_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.write(sse('matches', [pathMatch('a', 'x')]));
      res.write(`event: matches\ndata: [${'"x",'.repeat(3_000_000)}`);
    });
    expect(r.verdict).toBe('error');
    expect(r.counted).toBe(1);
    expect(r.failure!.kind).toBe('event_too_large');
    expect(r.failure!.exitCode).toBe(ExitCode.unreachable);
    expect(r.errors).toEqual(['an event exceeded 10 MB; the rest of the stream cannot be decoded']);
  });
});

describe('runSearch: cancellation', () => {
  it('an abort mid-stream returns what was counted', async () => {
    const controller = new AbortController();
    const r = await search(
      async (_req, res) => {
        res.writeHead(200, SSE_HEADERS);
        res.write(sse('matches', [pathMatch('a', 'x')]));
        await sleep(20);
        controller.abort();
      },
      { signal: controller.signal },
    );
    expect(r.verdict).toBe('truncated');
    expect(r.counted).toBe(1);
    expect(r.failure).toEqual({ kind: 'aborted', message: 'the search was aborted', exitCode: ExitCode.aborted });
  });

  it('an abort before the request sends nothing', async () => {
    const r = await search(sends(...normalEnd(0)), { signal: AbortSignal.abort() });
    expect(r.verdict).toBe('truncated');
    expect(r.failure!.kind).toBe('aborted');
    expect(server!.received).toHaveLength(0);
  });

  it('a server that keeps the connection open after done does not hold the result', async () => {
    const r = await search(
      (_req, res) => {
        res.writeHead(200, SSE_HEADERS);
        res.write(normalEnd(0).join(''));
      },
      { stallTimeoutMs: 50 },
    );
    expect(r.verdict).toBe('complete');
    expect(r.failure).toBeUndefined();
  });
});
