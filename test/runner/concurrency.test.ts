// Per-target limits: at most N conversations (and M searches) at once on each target, measured on the
// servers themselves, and each target gets its own N.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { iterateSearchExport } from '../../src/store/queries.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { START, cleanup, emulator, maxOverlap, runSuite, suite, target } from './fixtures/harness.js';

let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  await cleanup();
});

/** Every question processes for exactly 100 ms of real time. */
const PACED = { timeScale: 0.001, sigma: 0, medianMs: 100_000, startTime: START };

function questions(n: number, followups = false): string {
  return Array.from(
    { length: n },
    (_, i) => `  - id: q${i}\n    question: Where is function${i} implemented?\n${followups && i % 2 === 0 ? '    followups: [And who calls it?]\n' : ''}`,
  ).join('');
}

describe('question concurrency', () => {
  it('never exceeds the limit on a target, and reaches it', async () => {
    const e = await emulator(PACED);
    const loaded = await suite(`
name: limits
defaults: { concurrency: 3, poll: { strategy: fixed, interval: 10s } }
questions:
${questions(10, true)}`);
    const run = await runSuite(loaded, [target({ name: 'main', emulator: e })]);
    try {
      expect(run.result.exitCode).toBe(ExitCode.ok);
      expect(e.questionRecords()).toHaveLength(15);
      expect(maxOverlap(e)).toBe(3);
      expect(run.reporter.maxRunning).toBe(3);
    } finally {
      run.close();
    }
  });

  it('--concurrency overrides the suite, and two targets each get their own limit', async () => {
    const [a, b] = await Promise.all([emulator(PACED), emulator(PACED)]);
    const loaded = await suite(`
name: limits
defaults: { concurrency: 1, poll: { strategy: fixed, interval: 10s } }
questions:
${questions(8)}`);
    const run = await runSuite(loaded, [target({ name: 'a', emulator: a }), target({ name: 'b', emulator: b })], { concurrency: 2 });
    try {
      expect(run.result.exitCode).toBe(ExitCode.ok);
      expect(maxOverlap(a)).toBe(2);
      expect(maxOverlap(b)).toBe(2);
      // Both targets ran at the same time: the limit is per target, not shared.
      expect(run.reporter.maxRunning).toBe(4);
    } finally {
      run.close();
    }
  });
});

describe('search concurrency', () => {
  it('has its own per-target limit, apart from the questions', async () => {
    let running = 0;
    let most = 0;
    // A stream endpoint that takes 40 ms per search and counts searches in flight.
    const server = await startServer(async (req: IncomingMessage, res: ServerResponse) => {
      if (!req.url?.startsWith('/.api/search/stream')) {
        res.writeHead(404).end();
        return;
      }
      running++;
      most = Math.max(most, running);
      await sleep(40);
      running--;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('event: progress\ndata: {"done":true,"matchCount":0,"durationMs":1,"skipped":[]}\n\nevent: done\ndata: {}\n\n');
    });
    servers.push(server);
    const loaded = await suite(`
name: searches
defaults: { concurrency: 5, searchConcurrency: 2 }
searches:
${Array.from({ length: 7 }, (_, i) => `  - id: s${i}\n    query: retry${i}\n`).join('')}`);
    const run = await runSuite(loaded, [target({ name: 'main', emulator: server.url })]);
    try {
      // Seven searches (the run also asks the instance its version, which this server does not know).
      expect(server.received.filter((r) => r.url.startsWith('/.api/search/stream'))).toHaveLength(7);
      expect(most).toBe(2);
      expect(run.reporter.maxRunning).toBe(2);
      expect(Object.values(run.result.targets.main?.counts ?? {}).reduce((a, b) => a + b, 0)).toBe(7);
    } finally {
      run.close();
    }
  });

  it("a search's wall time leaves out its wait for a slot", async () => {
    // One slot, four searches held 150 ms each by the server: each waits for the ones before it.
    const arrived = new Map<string, number>();
    const answered = new Map<string, number>();
    const server = await startServer(async (req: IncomingMessage, res: ServerResponse) => {
      if (!req.url?.startsWith('/.api/search/stream')) {
        res.writeHead(404).end();
        return;
      }
      const q = new URL(req.url, 'http://x').searchParams.get('q')!;
      arrived.set(q, performance.now());
      await sleep(150);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('event: progress\ndata: {"done":true,"matchCount":0,"durationMs":150,"skipped":[]}\n\nevent: done\ndata: {}\n\n');
      answered.set(q, performance.now());
    });
    servers.push(server);
    const loaded = await suite(`
name: searches
defaults: { searchConcurrency: 1 }
searches:
${Array.from({ length: 4 }, (_, i) => `  - id: s${i}\n    query: retry${i}\n`).join('')}`);
    const run = await runSuite(loaded, [target({ name: 'main', emulator: server.url })]);
    try {
      const wall = new Map([...iterateSearchExport(run.db, run.result.runId)].map((s) => [s.query, s.wallMs]));
      for (const i of [1, 2]) {
        // Sent once the search before it had its answer, seen done before the next one was sent.
        expect(wall.get(`retry${i}`)!).toBeLessThanOrEqual(arrived.get(`retry${i + 1}`)! - answered.get(`retry${i - 1}`)!);
        // Held 150 ms by the server (a timer may fire a millisecond early).
        expect(wall.get(`retry${i}`)!).toBeGreaterThanOrEqual(145);
      }
    } finally {
      run.close();
    }
  });
});
