import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { vi } from 'vitest';
import { Corpus } from '../../../src/emulator/corpus/index.js';
import { createStreamHandler, type StreamDeps, type StreamHandlerOptions } from '../../../src/emulator/stream/index.js';

export const BIG = 'retry\n' + 'x'.repeat(1024 * 1024);

/** The shared test corpus: `<host>/<owner>/<name>/<path>` → content. */
export const FILES: Record<string, string | Buffer> = {
  'github.com/acme/app/src/main.ts':
    "import { retry } from './retry';\nexport function main() {\n  return retry(() => fetchData(), 3);\n}\n",
  'github.com/acme/app/src/retry.ts':
    'export function retry<T>(fn: () => T, times: number): T {\n  for (let i = 0; i < times; i++) {\n    try { return fn(); } catch { /* Retry again */ }\n  }\n  throw new Error("RETRY failed after " + times);\n}\n',
  'github.com/acme/app/README.md': '# App\n\nRetry logic lives in src/retry.ts; call retry() with times.\n',
  'github.com/acme/app/docs/long.md': `intro\n${'retry '.repeat(20)}\noutro`,
  'github.com/acme/app/logo.png': Buffer.concat([Buffer.from('PNG\0\0'), Buffer.from('retry retry')]),
  'github.com/acme/app/big.txt': BIG,
  'github.com/acme/lib/lib.py': 'def retry(fn):\n    return fn()\n',
  'github.com/acme/lib/native.c': 'int retry_count = 3;\n',
  'github.com/old/archive/old.js': 'function retry() {}\n',
  'github.com/forks/copy/copy.js': 'const retry = 1;\n',
};
export const ARCHIVED = ['github.com/old/archive'];
export const FORKS = ['github.com/forks/copy'];

export function makeCorpusDir(files: Record<string, string | Buffer> = FILES): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsbench-corpus-'));
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  return dir;
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export function openCorpus(dir: string): Promise<Corpus> {
  return Corpus.open({ dir, archived: ARCHIVED, forks: FORKS });
}

/** A corpus over `dir` whose file reads each take `delayMs(path)` longer. */
export async function slowCorpus(dir: string, delayMs: (path: string) => number): Promise<Corpus> {
  const slow = await openCorpus(dir);
  const readText = slow.readText.bind(slow);
  vi.spyOn(slow, 'readText').mockImplementation(async (repo, file) => {
    await new Promise((r) => setTimeout(r, delayMs(file.path)));
    return readText(repo, file);
  });
  return slow;
}

export interface TestServer {
  url: string;
  close(): Promise<void>;
}

export async function startServer(deps: StreamDeps, options: StreamHandlerOptions = {}): Promise<TestServer> {
  const handler = createStreamHandler(deps, options);
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/.api/search/stream`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface StreamEvent {
  event: string;
  data: string;
}

/** A deliberately strict parser: every block must be exactly `event: x` + `data: y`. */
export function parseEvents(text: string): StreamEvent[] {
  if (text === '') return [];
  if (!text.endsWith('\n\n')) throw new Error(`stream does not end with a blank line: ${JSON.stringify(text.slice(-40))}`);
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((block) => {
      const m = /^event: ([a-z]+)\ndata: ([^\n]*)$/.exec(block);
      if (!m) throw new Error(`bad event block: ${JSON.stringify(block.slice(0, 200))}`);
      return { event: m[1]!, data: m[2]! };
    });
}

/** Parsed data of every event (throws on invalid JSON). */
export function json<T = any>(e: StreamEvent): T {
  return JSON.parse(e.data) as T;
}

export interface StreamResult {
  status: number;
  headers: Headers;
  events: StreamEvent[];
}

export async function stream(url: string, params: Record<string, string>, headers: Record<string, string> = {}): Promise<StreamResult> {
  const res = await fetch(`${url}?${new URLSearchParams(params)}`, {
    headers: { Accept: 'text/event-stream', 'Accept-Encoding': 'identity', ...headers },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, events: res.headers.get('content-type') === 'text/event-stream' ? parseEvents(text) : [] };
}

/** All matches of a stream, in order. */
export function matchesOf(events: StreamEvent[]): any[] {
  return events.filter((e) => e.event === 'matches').flatMap((e) => json<any[]>(e));
}

export function finalProgress(events: StreamEvent[]): any {
  const progress = events.filter((e) => e.event === 'progress').map((e) => json(e));
  const last = progress.at(-1);
  if (!last?.done) throw new Error('no final progress');
  return last;
}

/** The server's counting rule, applied to what was received. */
export function countOf(match: any): number {
  if (match.type !== 'content') return 1;
  if (match.chunkMatches) return match.chunkMatches.reduce((n: number, c: any) => n + c.ranges.length, 0);
  return match.lineMatches.reduce((n: number, l: any) => n + l.offsetAndLengths.length, 0);
}
