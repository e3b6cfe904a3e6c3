// Budgets and estimates through the CLI: `run --max-credits N` stops launching before the credits would pass
// N (exit 10, the figures in the message, resumable with a higher cap), is refused on the versioned API, and
// `run --dry-run` prints the plan and an estimate from earlier runs, asking nothing.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type Database from 'better-sqlite3';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { listRuns, runRow, storedItems } from '../../src/store/index.js';
import { prepareCli } from '../helpers/cli.js';
import { peek } from '../runner/fixtures/cli.js';
import { cleanup, emulator, FAST, tempDir, writeSuite } from '../runner/fixtures/harness.js';

const cli = prepareCli();
let e: RunningEmulator;
beforeAll(async () => {
  e = await emulator({ ...FAST, seed: 3 });
});
afterAll(cleanup);

const suiteOf = (api: string, ids: readonly string[]) => `name: budget
defaults: { api: ${api}, concurrency: 1, poll: { strategy: fixed, interval: 50ms, min: 20ms } }
questions:
${ids.map((id) => `  - id: ${id}\n    question: Where is ${id} implemented?\n`).join('')}`;
const IDS = ['q0', 'q1', 'q2', 'q3', 'q4', 'q5'];

/** A run's status and why it stopped. */
const stopOf = (db: Database.Database, runId: number) => {
  const row = runRow(db, runId);
  return row && { status: row.status, stopReason: row.stopReason };
};

const run = (args: string[], on = e) => cli.run(['run', ...args, '--reporter', 'lines'], { SRC_ACCESS_TOKEN: on.adminToken });

describe.concurrent('budgets and estimates', () => {
  it('--max-credits stops launching before the cap would be passed (exit 10, the figures said), and a resume with a higher cap finishes green', async ({ expect }) => {
    const dbPath = path.join(tempDir(), 'budget.db');
    const suiteFile = writeSuite(suiteOf('legacy', IDS));
    expect((await run([suiteFile, '--endpoint', e.url, '--db', dbPath])).code).toBe(0);
    const spent = peek(dbPath, (db) => listRuns(db).find((r) => r.id === 1)?.credits)!;
    expect(spent).toBeGreaterThan(0);
    const cap = Math.round(spent / 2);

    const capped = await run([suiteFile, '--endpoint', e.url, '--db', dbPath, '--max-credits', String(cap)]);
    expect(capped.code, capped.stderr).toBe(10);
    expect(capped.stderr).toMatch(new RegExp(`--max-credits ${cap}: stopped launching: [\\d.]+ credits recorded \\+ 0 expected of the 0 items in flight \\+ [\\d.]+ expected of the next \\(default/question/q\\d/0\\) would pass ${cap}`));
    expect(capped.stdout).toMatch(new RegExp(`Stopped by its budget: --max-credits ${cap}: stopped launching`));
    expect(capped.stdout).toContain(`Continue later, with a higher cap (here twice this one), with:\n  npx dsbench run --resume 2 --db ${dbPath} --max-credits ${2 * cap}\n`);
    const at = peek(dbPath, (db) => ({
      run: stopOf(db, 2),
      pending: storedItems(db, 2).filter((i) => i.itemStatus === 'pending').length,
    }))!;
    expect(at.run).toEqual({ status: 'aborted', stopReason: 'budget' });
    expect(at.pending).toBeGreaterThan(0);
    expect(at.pending).toBeLessThan(IDS.length);
    const listed = JSON.parse((await cli.run(['runs', '--db', dbPath, '--json'])).stdout) as Array<{ id: number; exitCode: number }>;
    expect(listed.find((r) => r.id === 2)?.exitCode).toBe(10);

    const resumed = await run(['--resume', '2', '--db', dbPath, '--max-credits', String(spent * 3)]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(peek(dbPath, (db) => stopOf(db, 2))).toEqual({ status: 'completed', stopReason: null });
  }, 60_000);

  it('--max-credits is refused on the versioned API, which reports no credits, and no database is made', async ({ expect }) => {
    const dbPath = path.join(tempDir(), 'versioned.db');
    const refused = await run([writeSuite(suiteOf('versioned', IDS)), '--endpoint', e.url, '--db', dbPath, '--max-credits', '100']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--max-credits: the versioned API reports no credits (its replies carry no stats), so a cap on them could never stop the run');
    expect(peek(dbPath, () => true)).toBeUndefined();
  });

  it('--dry-run prints the plan and an estimate from earlier runs of the suite on the target ("no history" where none), and asks nothing', async ({ expect }) => {
    // Its own emulator: what it was asked is this test's alone.
    const own = await emulator({ ...FAST, seed: 4 });
    const askedOnServer = () => own.questionRecords().length;
    const dbPath = path.join(tempDir(), 'dry.db');
    const suiteFile = writeSuite(suiteOf('legacy', IDS.slice(0, 3)));
    expect((await run([suiteFile, '--endpoint', own.url, '--db', dbPath, '--repeats', '2'], own)).code).toBe(0);
    const asked = askedOnServer();
    // The suite grew a question since: it has no history.
    writeFileSync(suiteFile, suiteOf('legacy', [...IDS.slice(0, 3), 'fresh']));
    const dry = await run([suiteFile, '--endpoint', own.url, '--db', dbPath, '--dry-run', '--repeats', '3']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`Plan of suite budget (${suiteFile}): legacy API, repeats 3, concurrency 1 (searches 2)\n  default (${own.url}): 12 questions, 0 searches\n`);
    expect(dry.stdout).toMatch(/\ndefault +question q0 +3 +2 +[\d.]+ \([\d.]+-[\d.]+\) +\d+\.\d s \(\d+\.\d s-\d+\.\d s\)\n/);
    expect(dry.stdout).toMatch(/\ndefault +question fresh +3 +0 +no history +no history\n/);
    expect(dry.stdout).toMatch(/\n {2}default: credits about [\d.,]+ \(\+ 3 questions with no history\); wall time about \d+\.\d s; quota (left [\d.,]+ of [\d.,]+ as of \S+|unlimited \(as of \S+\)|never reported)/);
    expect(dry.stdout).toContain('Nothing was asked (--dry-run).');
    const json = await run([suiteFile, '--endpoint', own.url, '--db', dbPath, '--dry-run', '--json', '--only', 'fresh']);
    expect(JSON.parse(json.stdout)).toMatchObject({ dryRun: true, targets: [{ name: 'default', questions: 1, withoutHistory: 1 }] });
    expect(askedOnServer()).toBe(asked);
    expect(peek(dbPath, (db) => listRuns(db).length)).toBe(1);
    // No database yet: an estimate of nothing, and no file made.
    const none = path.join(tempDir(), 'none.db');
    const fresh = await run([suiteFile, '--endpoint', own.url, '--db', none, '--dry-run']);
    expect(fresh.stdout).toContain(`(no database at ${none}; medians, per item)`);
    expect(peek(none, () => true)).toBeUndefined();
  }, 60_000);
});
