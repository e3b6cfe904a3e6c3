import { mulberry32 } from '../../src/random.js';
// Purpose-built misbehaving servers and exact SSE bytes for the stream tests.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { headersFor } from '../../src/config/credentials.js';
import { Transport } from '../../src/http/transport.js';

export interface Received {
  url: string;
  headers: http.IncomingHttpHeaders;
}

export interface TestServer {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void | Promise<void>;

/** A server on port 0 that records requests; `close` also cuts connections left hanging on purpose. */
export async function serve(handler: Handler): Promise<TestServer> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    received.push({ url: req.url ?? '', headers: req.headers });
    void Promise.resolve(handler(req, res, received.length)).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One event exactly as the platform frames it; `data` is JSON-encoded unless it is a string. */
export function sse(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

export const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

/** Writes `bytes` in pieces cut at `cuts`, letting each piece leave before the next. */
export async function writeCut(res: http.ServerResponse, bytes: Buffer, cuts: readonly number[]): Promise<void> {
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > from) {
      res.write(bytes.subarray(from, cut));
      await sleep(1);
    }
    from = Math.max(from, cut);
  }
}

/** Deterministic PRNG. */
export const prng = mulberry32;

/** `count` sorted random cut positions inside [1, length). */
export function randomCuts(length: number, count: number, random: () => number): number[] {
  return Array.from({ length: count }, () => 1 + Math.floor(random() * (length - 1))).sort((a, b) => a - b);
}

export function transportFor(url: string): Transport {
  return new Transport({
    endpoint: url,
    headers: headersFor({ endpoint: url, token: 'sgp_0123456789abcdef', extraHeaders: {} }, 'stream'),
    retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
  });
}

// Match objects shaped as the platform sends them.

export function contentMatch(repository: string, path: string, ranges: number[]): Record<string, unknown> {
  return {
    type: 'content',
    path,
    repositoryID: 7,
    repository,
    repoStars: 3,
    repoLastFetched: '2025-01-01T00:00:00Z',
    branches: [''],
    commit: 'abc123',
    hunks: null,
    chunkMatches: ranges.map((n, i) => ({
      content: `line ${i}\n\tcafé "quoted" 中文 ✓`,
      contentStart: { offset: i * 10, line: i, column: 0 },
      ranges: Array.from({ length: n }, (_, k) => ({
        start: { offset: k, line: i, column: k },
        end: { offset: k + 2, line: i, column: k + 2 },
      })),
    })),
    language: 'Go',
  };
}

export function lineMatch(repository: string, path: string, offsets: number[]): Record<string, unknown> {
  return {
    type: 'content',
    path,
    repositoryID: 7,
    repository,
    hunks: null,
    lineMatches: offsets.map((n, i) => ({
      line: `x${i}`,
      lineNumber: i,
      offsetAndLengths: Array.from({ length: n }, (_, k) => [k, 1]),
    })),
  };
}

export const pathMatch = (repository: string, path: string) => ({ type: 'path', path, repositoryID: 7, repository, pathMatches: [] });
export const repoMatch = (repository: string) => ({ type: 'repo', repositoryID: 7, repository, repoStars: 1 });
export const symbolMatch = (repository: string, path: string, n: number) => ({
  type: 'symbol',
  path,
  repository,
  repositoryID: 7,
  symbols: Array.from({ length: n }, (_, k) => ({ url: `/s${k}`, name: `S${k}`, containerName: '', kind: 'FUNCTION', line: k })),
});
export const commitMatch = (repository: string, ranges: number) => ({
  type: 'commit',
  url: '/c',
  repository,
  repositoryID: 7,
  oid: 'abc',
  message: 'fix: retry',
  authorName: 'A',
  authorDate: '2025-01-01T00:00:00Z',
  content: '```diff\n-a\n+b\n```',
  ranges: Array.from({ length: ranges }, (_, k) => [k, 0, 3]),
});

export function progress(matchCount: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { done: false, matchCount, durationMs: 12, skipped: [], ...extra };
}

export function finalProgress(matchCount: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { done: true, repositoriesCount: 2, matchCount, durationMs: 40, skipped: [], ...extra };
}

export const exhaustiveFilters = [
  { value: 'lang:go', label: 'Go', count: 3, exhaustive: true, kind: 'lang' },
  { value: 'repo:^a$', label: 'a', count: 1, exhaustive: true, kind: 'repo' },
];
