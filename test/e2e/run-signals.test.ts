// Signals on `dsbench run`: the first stops launching and lets running questions finish within the grace
// period (then cancels them on the server); a second exits at once; --resume then runs what is left.
// The tests are concurrent (each with its own emulator, database and process): they mostly wait. No answer
// can end before a test lets it (gatedSearch), so what a signal finds does not depend on the machine's load.
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, describe, it } from 'vitest';
import type { AgentSearch } from '../../src/emulator/agent-search.js';
import type { EmulatorOptions, RunningEmulator } from '../../src/emulator/index.js';
import { findRun, storedItems } from '../../src/store/index.js';
import { peek, runChildCli, startCli, until, type Child } from '../runner/fixtures/cli.js';
import { cleanup, emulator, op, tempDir, writeSuite } from '../runner/fixtures/harness.js';
import { inlineSearch } from '../helpers/emulator.js';

afterAll(cleanup);

const suiteOf = (n: number, concurrency: number) => `name: signals
defaults:
  concurrency: ${concurrency}
  poll: { strategy: fixed, interval: 50ms, min: 20ms }
questions:
${Array.from({ length: n }, (_, i) => `  - id: q${i}\n    question: Where is handler${i} implemented?\n${i % 4 === 0 ? '    followups: [Who calls it?]\n' : ''}`).join('')}`;

const turnsOf = (n: number) => n + Math.ceil(n / 4);

/**
 * The agent's searches wait for `open()`. Until then the emulator's clock holds at the first due answer
 * (src/emulator/service.ts), so every question started stays processing however slow the machine is.
 */
function gatedSearch(): { search: AgentSearch; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  const search: AgentSearch = async (query) => {
    await opened;
    return inlineSearch(query);
  };
  return { search, open };
}

/** Deadline of a wait for a state: four CLIs start at once, and a loaded machine can take many times the ~3 s they take idle. */
const STATE_MS = 60_000;
/** Polling the database opens it each time: often enough to act promptly, seldom enough to leave the CPU to the CLIs. */
const POLL_MS = 50;

interface Started {
  e: RunningEmulator;
  /** Lets the questions' answers end. */
  open: () => void;
  dbPath: string;
  suiteFile: string;
  env: Record<string, string>;
  child: Child;
}

async function start(options: EmulatorOptions, suite: string, extra: string[] = []): Promise<Started> {
  const gate = gatedSearch();
  const e = await emulator({ seed: 5, ...options }, { search: gate.search });
  const dbPath = path.join(tempDir(), 'signals.db');
  const suiteFile = writeSuite(suite);
  const env = { SRC_ACCESS_TOKEN: e.adminToken };
  const child = startCli(['run', suiteFile, '--endpoint', e.url, '--db', dbPath, '--reporter', 'lines', ...extra], env);
  return { e, open: gate.open, dbPath, suiteFile, env, child };
}

/** Items by status, and how many have a conversation whose current turn is processing on the server. */
function progress(db: Database.Database) {
  const items = storedItems(db, 1);
  const count = (status: string) => items.filter((i) => i.itemStatus === status).length;
  return { done: count('done'), running: count('running'), processing: items.flatMap((i) => i.turns).filter((t) => t.state === 'processing').length };
}

const itemsOf = (db: Database.Database) => storedItems(db, 1);

const runOf = (db: Database.Database) => {
  const run = findRun(db, 1);
  return run && { status: run.status, endedAt: run.endedAt };
};

/** Answers in about 0.5 s of real time once the gate is open. */
const QUICK: EmulatorOptions = { timeScale: 0.015, medianMs: 30_000, sigma: 0.3 };

describe.concurrent('signals', () => {
  it('first SIGINT: stops launching, lets running questions finish, exits 4 with the run aborted; --resume runs only the rest', async ({ expect }) => {
    const { e, open, dbPath, env, child } = await start(QUICK, suiteOf(9, 3));
    await until('three questions processing', () => peek(dbPath, (db) => progress(db).processing >= 3), STATE_MS, POLL_MS);
    child.process.kill('SIGINT');
    await until('the signal to be acknowledged', () => child.stderr.includes('launching nothing more'), STATE_MS, POLL_MS);
    open();
    const exit = await child.exited;
    expect(exit.code, exit.stderr).toBe(4);
    expect(exit.stderr).toContain('dsbench: SIGINT: launching nothing more; running questions have 30 s to finish');
    expect(exit.stdout).toMatch(/Run 1 aborted in/);

    const at = peek(dbPath, (db) => ({ run: runOf(db), items: itemsOf(db) }))!;
    expect(at.run).toEqual({ status: 'aborted', endedAt: expect.any(String) });
    // Nothing left running: each started question finished (none cancelled), the rest never started.
    expect(at.items.every((i) => (i.itemStatus === 'done' && i.outcome === 'completed') || (i.itemStatus === 'pending' && i.outcome === null))).toBe(true);
    const done = at.items.filter((i) => i.itemStatus === 'done').length;
    const pending = at.items.filter((i) => i.itemStatus === 'pending').map((i) => i.itemKey);
    expect(done).toBe(3);
    expect(pending).toHaveLength(6);
    expect(e.counters()[op('versioned', 'cancel')]).toBe(0);
    expect(e.questionRecords().every((q) => q.outcome === 'completed')).toBe(true);
    expect(e.counters()[op('versioned', 'create')]).toBe(done);

    // Resume, with neither suite nor endpoint (both are the run's own): the pending items run, the done
    // ones are not asked again.
    const resumed = await runChildCli(['run', '--resume', '1', '--db', dbPath, '--reporter', 'lines'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`(${done} already done)`);
    expect(e.counters()[op('versioned', 'create')]).toBe(9);
    expect(e.counters()[op('versioned', 'create')]! + e.counters()[op('versioned', 'addQuestion')]!).toBe(turnsOf(9));
    expect(e.questionRecords()).toHaveLength(turnsOf(9));
    const end = peek(dbPath, (db) => ({ run: runOf(db), items: itemsOf(db) }))!;
    expect(end.run?.status).toBe('completed');
    expect(end.items.every((i) => i.itemStatus === 'done' && i.outcome === 'completed')).toBe(true);
  }, 120_000);

  // The answers never come (the gate stays shut): a CLI that waited for them would not exit by the test's deadline.
  it.for(['SIGINT', 'SIGTERM'] as const)('first %s with --grace 200ms: running questions are cancelled on the server and recorded canceled', { timeout: 90_000 }, async (signal, { expect }) => {
    const { e, dbPath, child } = await start(QUICK, suiteOf(6, 2), ['--grace', '200ms']);
    await until('two questions processing', () => peek(dbPath, (db) => progress(db).processing >= 2), STATE_MS, POLL_MS);
    const sent = performance.now();
    child.process.kill(signal);
    const exit = await child.exited;
    expect(performance.now() - sent).toBeLessThan(25_000); // before the default 30 s grace, had --grace been ignored
    expect(exit.code, exit.stderr).toBe(4);
    expect(exit.stderr).toContain(`dsbench: ${signal}: launching nothing more; running questions have 200 ms to finish`);

    const at = peek(dbPath, (db) => ({
      run: runOf(db),
      items: itemsOf(db),
    }))!;
    expect(at.run?.status).toBe('aborted');
    const canceled = at.items.filter((i) => i.itemStatus === 'done');
    expect(canceled.map((i) => i.outcome)).toEqual(['canceled', 'canceled']);
    expect(canceled.every((i) => i.message === 'cancelled by dsbench: the run was aborted')).toBe(true);
    const turns = at.items.flatMap((i) => i.turns.map(({ itemKey, state, clientError }) => ({ itemKey, state, clientError })));
    expect(turns).toEqual(canceled.map((i) => ({ itemKey: i.itemKey, state: 'canceled', clientError: 'cancelled by dsbench: the run was aborted' })));
    expect(at.items.filter((i) => i.itemStatus === 'pending')).toHaveLength(4);
    expect(e.counters()[op('versioned', 'cancel')]).toBe(2);
    expect(e.questionRecords().map((q) => q.outcome)).toEqual(['cancelled', 'cancelled']);
  });

  it('second SIGINT: exits at once with 4, the database consistent and the run resumable', async ({ expect }) => {
    const { e, dbPath, child } = await start(QUICK, suiteOf(6, 2));
    await until('two questions processing', () => peek(dbPath, (db) => progress(db).processing >= 2), STATE_MS, POLL_MS);
    child.process.kill('SIGINT');
    await until('the first signal to be acknowledged', () => child.stderr.includes('launching nothing more'), STATE_MS, POLL_MS);
    const second = performance.now();
    child.process.kill('SIGINT');
    const exit = await child.exited;
    expect(performance.now() - second).toBeLessThan(25_000); // before the 30 s grace the first signal gave
    expect(exit.code).toBe(4);
    // Both signals say how to continue, as a command that works as printed (with the database).
    expect(exit.stderr).toContain(`Continue later with:\n  npx dsbench run --resume 1 --db ${dbPath}\n`);
    expect(exit.stderr).toContain(`dsbench: second SIGINT: exiting now. Continue later with:\n  npx dsbench run --resume 1 --db ${dbPath}\n`);

    const at = peek(dbPath, (db) => ({
      // The file itself is what a kill could damage: SQLite's own check of it.
      integrity: db.pragma('integrity_check', { simple: true }),
      run: runOf(db),
      items: itemsOf(db),
    }))!;
    expect(at.integrity).toBe('ok');
    expect(at.run).toEqual({ status: 'aborted', endedAt: expect.any(String) });
    // The two questions were left processing on the server: a resume re-polls them.
    expect(at.items.filter((i) => i.itemStatus === 'running')).toHaveLength(2);
    expect(e.counters()[op('versioned', 'cancel')]).toBe(0);
  }, 90_000);
});
