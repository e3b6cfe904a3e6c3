// SIGINT, SIGTERM and SIGHUP behave the same at any moment: exit code 4, never death by signal. A stalled
// server holds each command at a known point (its first request) so the signal lands there, not by timing.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { findRun } from '../../src/store/index.js';
import { peek, startCli, turnsProcessing, until } from '../runner/fixtures/cli.js';
import { cleanup, emulator, tempDir, writeSuite } from '../runner/fixtures/harness.js';

afterAll(cleanup);

/** A server that accepts every request and never answers; counts what arrived. */
async function stalled(): Promise<{ url: string; requests: IncomingMessage[]; close: () => void }> {
  const requests: IncomingMessage[] = [];
  const server: Server = createServer((req) => requests.push(req));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe.concurrent('a stop signal at any moment exits 4', () => {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${signal} while search waits for its first byte`, async ({ expect }) => {
      const server = await stalled();
      try {
        const child = startCli(['search', 'needle'], { SRC_ENDPOINT: server.url, SRC_ACCESS_TOKEN: 'token-x' });
        await until('the search request', () => server.requests.length > 0);
        child.process.kill(signal);
        const exit = await child.exited;
        expect(exit.signal, exit.stderr).toBeNull();
        expect(exit.code, exit.stderr).toBe(ExitCode.aborted);
        expect(exit.stderr).toContain(`${signal}`);
      } finally {
        server.close();
      }
    });
  }

  it('SIGHUP during a run is handled as SIGINT: launching stops, running questions are cancelled, the run is aborted, exit 4', async ({ expect }) => {
    // Answers take far longer than the test: only the cancel can end them.
    const e = await emulator({ seed: 3, timeScale: 0.4, medianMs: 50_000, sigma: 0 });
    const dbPath = path.join(tempDir(), 'hup.db');
    const suiteFile = writeSuite(`name: hup
defaults: { concurrency: 2, poll: { strategy: fixed, interval: 50ms, min: 20ms } }
questions:
${Array.from({ length: 5 }, (_, i) => `  - id: q${i}\n    question: Where is handler${i} implemented?\n`).join('')}`);
    const child = startCli(['run', suiteFile, '--endpoint', e.url, '--db', dbPath, '--reporter', 'lines', '--grace', '100ms'], { SRC_ACCESS_TOKEN: e.adminToken });
    await until('two questions processing', () => (peek(dbPath, turnsProcessing) ?? 0) >= 2);
    child.process.kill('SIGHUP');
    const exit = await child.exited;
    expect(exit.signal, exit.stderr).toBeNull();
    expect(exit.code, exit.stderr).toBe(ExitCode.aborted);
    expect(exit.stderr).toContain('SIGHUP: launching nothing more');
    const status = peek(dbPath, (db) => findRun(db, 1)?.status);
    expect(status).toBe('aborted');
    // Nothing left processing on the server: the run's conversations were cancelled, as for SIGINT.
    expect(e.questionRecords().filter((q) => q.outcome === 'processing')).toEqual([]);
    expect(e.questionRecords().filter((q) => q.outcome === 'cancelled').length).toBe(2);
  });

  it('SIGTERM during a run\'s start-up (its first request, before any question) exits 4, not by the signal', async ({ expect }) => {
    const server = await stalled();
    try {
      const suiteFile = writeSuite('name: early\nquestions:\n  - id: q0\n    question: Where is it?\n');
      const child = startCli(['run', suiteFile, '--endpoint', server.url, '--db', path.join(tempDir(), 'early.db'), '--quiet', '--grace', '50ms'], { SRC_ACCESS_TOKEN: 'token-x' });
      await until('the preflight request', () => server.requests.length > 0);
      child.process.kill('SIGTERM');
      const exit = await child.exited;
      expect(exit.signal, exit.stderr).toBeNull();
      expect(exit.code, exit.stderr).toBe(ExitCode.aborted);
    } finally {
      server.close();
    }
  });
});
