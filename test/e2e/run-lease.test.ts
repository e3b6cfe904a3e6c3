// Two processes on one run: the second `dsbench run --resume` is refused at once (exit 7) naming the
// holder; once the holder is SIGKILLed, a resume takes the lease over at once and asks nothing twice.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { findRun, leaseHolder } from '../../src/store/index.js';
import { peek, runChildCli, startCli, until } from '../runner/fixtures/cli.js';
import { asked, cleanup, emulator, tempDir, writeSuite } from '../runner/fixtures/harness.js';

const QUESTIONS = Array.from({ length: 4 }, (_, i) => `Where is function${i} of module${i % 3} implemented?`);
const SUITE = `name: lease
defaults:
  concurrency: 1
  poll: { strategy: fixed, interval: 50ms, min: 20ms }
questions:
${QUESTIONS.map((q, i) => `  - { id: q${i}, question: "${q}" }\n`).join('')}`;

let e: RunningEmulator;
let elsewhere: RunningEmulator;
beforeAll(async () => {
  elsewhere = await emulator({ timeScale: 0.1 });
  // Answers take 4 s of real time, one at a time: the first process is still running (16 s) when the
  // second one has started, even on a loaded machine; the resume runs them all at once.
  e = await emulator({ timeScale: 0.1, medianMs: 40_000, sigma: 0, seed: 5 });
});
afterAll(cleanup);

describe('dsbench run --resume on a run another process holds, from another shell', () => {
  it('is refused with exit 7 while the holder lives, and taken over once it is killed', async () => {
    const dbPath = path.join(tempDir(), 'lease.db');
    const suiteFile = writeSuite(SUITE);
    const env = { SRC_ACCESS_TOKEN: e.adminToken, SRC_ENDPOINT: e.url };
    const holder = startCli(['run', suiteFile, '--db', dbPath, '--reporter', 'lines', '--request-timeout', '2s'], env);
    const held = (db: Parameters<typeof findRun>[0]) => {
      const run = findRun(db, 'latest');
      return run && leaseHolder(db, run.id) ? run.id : undefined;
    };
    const runId = await until('the run holds its lease', () => peek(dbPath, held), 20_000);

    const second = await runChildCli(['run', '--resume', String(runId), '--db', dbPath, '--reporter', 'lines'], env);
    expect(second.code, second.stderr).toBe(ExitCode.runHeld);
    expect(second.stderr).toContain(`run ${runId} is held by another dsbench (pid ${holder.process.pid} on host `);
    expect(second.stderr).toMatch(/\) since \d{4}-\d\d-\d\dT[\d:.]+Z, last heartbeat \d+ s ago/);

    holder.process.kill('SIGKILL');
    await holder.exited;
    // Within a second of the kill, from a shell whose SRC_ENDPOINT now names another instance.
    const resumed = await runChildCli(['run', '--resume', String(runId), '--db', dbPath, '--reporter', 'lines', '--concurrency', '4', '--request-timeout', '2s'], { ...env, SRC_ENDPOINT: elsewhere.url });
    expect(resumed.code, resumed.stderr).toBe(ExitCode.ok);
    expect(resumed.stderr).toContain(`took over run ${runId} from pid ${holder.process.pid} on host `);
    expect(resumed.stderr).toContain(`process ${holder.process.pid} is gone`);
    expect(resumed.stderr).toContain(`SRC_ENDPOINT (${elsewhere.url}) is ignored: run ${runId} is bound to default=${e.url}`);
    expect(asked(e, 'versioned')).toBe(QUESTIONS.length);
    expect(Object.values(elsewhere.counters()).reduce((n, c) => n + c, 0)).toBe(0);
    expect(peek(dbPath, (db) => leaseHolder(db, runId) ?? null)).toBeNull();
  }, 60_000);
});
