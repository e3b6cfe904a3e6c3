// An interrupted run comes back green: the questions dsbench itself cancelled when it was interrupted are
// asked again by the resume (their cancelled attempts kept, shown as their own category, never as asked
// twice), the resume command is printed on lines of its own and repeated at the end of the summary, and a
// run on the embedded emulator is never offered a resume.
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { findRun, requeuedAttemptRows, storedItems } from '../../src/store/index.js';
import { peek, runChildCli, startCli, turnsProcessing, until } from '../runner/fixtures/cli.js';
import { cleanup, emulator, op, tempDir, writeSuite } from '../runner/fixtures/harness.js';

afterAll(cleanup);

const suiteOf = (n: number) => `name: green
defaults:
  concurrency: 2
  poll: { strategy: fixed, interval: 50ms, min: 20ms }
questions:
${Array.from({ length: n }, (_, i) => `  - id: q${i}\n    question: Where is handler${i} implemented?\n    expect: { state: completed }\n`).join('')}`;

const processing = (dbPath: string, n: number) => peek(dbPath, (db) => turnsProcessing(db) >= n);

describe.concurrent('interrupt and resume, green', () => {
  it('a resume asks again the questions dsbench cancelled on the interruption, keeps their attempts, and exits 0', async ({ expect }) => {
    // Answers in 2 s of real time: the grace period (200 ms) cancels the two that run.
    const e = await emulator({ seed: 5, timeScale: 0.04, medianMs: 50_000, sigma: 0 });
    const dbPath = path.join(tempDir(), 'green.db');
    const env = { SRC_ACCESS_TOKEN: e.adminToken };
    const child = startCli(['run', writeSuite(suiteOf(4)), '--endpoint', e.url, '--db', dbPath, '--reporter', 'lines', '--grace', '200ms'], env);
    await until('two questions processing', () => processing(dbPath, 2), 20_000);
    child.process.kill('SIGINT');
    const first = await child.exited;
    expect(first.code, first.stderr).toBe(4);
    // The command on a line of its own, in the notice and again at the end of the summary.
    const command = `\n  npx dsbench run --resume 1 --db ${dbPath}\n`;
    expect(first.stderr).toContain(`Continue later with:${command}`);
    expect(first.stdout).toMatch(new RegExp(`Exit code 4\\.\\n[^]*Continue later with:${command.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`));
    expect(e.counters()[op('versioned', 'cancel')]).toBe(2);

    const resumed = await runChildCli(['run', '--resume', '1', '--db', dbPath, '--reporter', 'lines'], env);
    expect(resumed.code, resumed.stderr + resumed.stdout).toBe(0);
    expect(resumed.stderr).toMatch(/run 1: running again 2 items dsbench stopped when the run was interrupted \(default\/question\/q\d\/0, default\/question\/q\d\/0\)/);
    expect(resumed.stdout).toContain('Run again after dsbench stopped them on an interruption (asked again after our own cancel, not asked twice; docs/restarts.md):\n  default: 2 attempts stopped by dsbench, run again\n');
    expect(resumed.stdout).not.toContain('Continue later');

    const at = peek(dbPath, (db) => ({
      run: findRun(db, 1)?.status,
      items: storedItems(db, 1),
      attempts: requeuedAttemptRows(db, 1),
    }))!;
    expect(at.run).toBe('completed');
    expect(at.items.map(({ itemStatus, outcome }) => ({ itemStatus, outcome }))).toEqual(Array.from({ length: 4 }, () => ({ itemStatus: 'done', outcome: 'completed' })));
    expect(at.attempts).toHaveLength(2);
    for (const a of at.attempts) {
      expect(a).toMatchObject({ attempt: 0, outcome: 'canceled', message: 'cancelled by dsbench: the run was aborted', turns: 1, conversationRef: expect.any(String) });
      // The item asked again in a new conversation; the cancelled one stays the attempt's.
      expect(at.items.find((i) => i.itemKey === a.itemKey)?.conversationRef).not.toBe(a.conversationRef);
    }
    // On the server: 4 questions completed, 2 cancelled attempts of 2 of them, nothing else.
    const records = e.questionRecords();
    expect(records.map((r) => r.outcome).sort()).toEqual(['cancelled', 'cancelled', 'completed', 'completed', 'completed', 'completed']);
    const cancelledTexts = records.filter((r) => r.outcome === 'cancelled').map((r) => r.text);
    expect(at.attempts.flatMap((a) => a.texts).sort()).toEqual(cancelledTexts.sort());

    // `runs` agrees: passed.
    const runs = await runChildCli(['runs', '--db', dbPath, '--json'], env);
    expect(JSON.parse(runs.stdout)[0]).toMatchObject({ id: 1, status: 'completed', exitCode: 0 });
  }, 60_000);

  it('a run on the embedded emulator is never offered a resume', async ({ expect }) => {
    const dbPath = path.join(tempDir(), 'embedded.db');
    const child = startCli(['run', writeSuite(suiteOf(4)), '--db', dbPath, '--reporter', 'lines', '--grace', '100ms', '--emulator-time-scale', '0.2']);
    await until('a question processing', () => processing(dbPath, 1), 20_000);
    child.process.kill('SIGINT');
    const exit = await child.exited;
    expect(exit.code, exit.stderr).toBe(4);
    const never = 'This run is on the embedded emulator, which ends with this process: it cannot be resumed; run the suite again instead.';
    expect(exit.stderr).toContain(never);
    expect(exit.stdout).toContain(never);
    expect(exit.stdout + exit.stderr).not.toContain('--resume');
  }, 60_000);
});
