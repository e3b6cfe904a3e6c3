// Run hygiene through the CLI: a run that asked nothing (every item skipped on a 401) is recorded as such,
// never `latest` for its label and apart from the trend; `dsbench runs delete` removes a run and everything
// it recorded, only with --yes, and never a run another live process is running.
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { leaseHolder } from '../../src/store/index.js';
import { prepareCli } from '../helpers/cli.js';
import { WIDE } from '../helpers/cli-here.js';
import { peek, startCli, until } from '../runner/fixtures/cli.js';
import { cleanup, emulator, FAST, tempDir, writeSuite } from '../runner/fixtures/harness.js';

afterAll(cleanup);
// The built CLI: it starts faster than the sources through tsx, and this file starts it 17 times.
const runChildCli = prepareCli().run;

const SUITE = `name: hygiene
defaults:
  poll: { strategy: fixed, interval: 50ms, min: 20ms }
questions:
  - id: q0
    question: Where is handler0 implemented?
  - id: q1
    question: Where is handler1 implemented?
`;

/** Row counts of every table that holds a run's records, for run `runId`. */
function recorded(dbPath: string, runId: number): Record<string, number> {
  return peek(dbPath, (db) => {
    // Found in the schema itself, on purpose: a table added later, that no reader knows yet, is counted too.
    const tables = db.prepare(`SELECT m.name FROM sqlite_schema m WHERE m.type = 'table' AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'run_id')`).pluck().all() as string[];
    return Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT count(*) FROM ${t} WHERE run_id = ?`).pluck().get(runId) as number]));
  })!;
}

describe.concurrent('run hygiene', () => {
  it('a run that asked nothing (every item skipped on a 401) is never latest for its label and stands apart in the history', async ({ expect }) => {
    const e = await emulator({ ...FAST });
    const dbPath = path.join(tempDir(), 'hygiene.db');
    const suiteFile = writeSuite(SUITE);
    const run = (token: string) => runChildCli(['run', suiteFile, '--endpoint', e.url, '--db', dbPath, '--label', 'nightly', '--reporter', 'quiet'], { SRC_ACCESS_TOKEN: token });
    expect((await run(e.adminToken)).code).toBe(0);
    const refused = await run('not-a-token');
    expect(refused.code, refused.stderr).toBe(3);

    const runs = JSON.parse((await runChildCli(['runs', '--db', dbPath, '--json'])).stdout) as Array<{ id: number; nothingAsked: boolean }>;
    expect(runs.map((r) => [r.id, r.nothingAsked])).toEqual([
      [2, true],
      [1, false],
    ]);
    expect((await runChildCli(['runs', '--db', dbPath], WIDE)).stdout).toMatch(/\n\s*2 +nightly .*NOTHING ASKED: unreachable \(exit 3\)/);
    // `nightly` and `latest` name the night that asked; run 2 is still there by its id.
    for (const name of ['nightly', 'latest']) {
      const report = await runChildCli(['report', name, '--db', dbPath, '--format', 'json', '--out', path.join(tempDir(), 'r')]);
      expect(report.code, report.stderr).toBe(0);
      expect(JSON.parse(report.stdout)).toMatchObject({ run: { id: 1 } });
    }
    const history = await runChildCli(['report', '--history', '5', '--db', dbPath, '--format', 'json', '--out', path.join(tempDir(), 'h')]);
    expect(history.code, history.stderr).toBe(0);
    const trend = JSON.parse(history.stdout) as { rows: Array<{ runId: number }>; nothingAsked: Array<{ id: number }> };
    expect(trend.rows.map((r) => r.runId)).toEqual([1]);
    expect(trend.nothingAsked.map((r) => r.id)).toEqual([2]);
    const text = await runChildCli(['report', '--history', '5', '--db', dbPath, '--out', path.join(tempDir(), 'h2')], WIDE);
    expect(text.stdout).toContain('Left out of the trend, 1 run that asked nothing (every item skipped before it was sent, e.g. a refused token): 2 (nightly)');
  }, 60_000);

  it('runs delete: refused without --yes, removes the run and everything it recorded with it, and keeps the others', async ({ expect }) => {
    const e = await emulator({ ...FAST });
    const dbPath = path.join(tempDir(), 'delete.db');
    const suiteFile = writeSuite(SUITE);
    for (let i = 0; i < 2; i++) {
      expect((await runChildCli(['run', suiteFile, '--endpoint', e.url, '--db', dbPath, '--reporter', 'quiet'], { SRC_ACCESS_TOKEN: e.adminToken })).code).toBe(0);
    }
    const before = recorded(dbPath, 1);
    expect(before).toMatchObject({ items: 2, turns: 2, targets: 1 });

    const unsure = await runChildCli(['runs', 'delete', '1', '--db', dbPath]);
    expect(unsure.code).toBe(2);
    expect(unsure.stderr).toContain(`dsbench runs delete removes run 1 of suite hygiene, started `);
    expect(unsure.stderr).toContain(`and everything it recorded from ${dbPath}, for good; add --yes to do it`);
    expect(recorded(dbPath, 1)).toEqual(before);

    const deleted = await runChildCli(['runs', 'delete', '1', '--db', dbPath, '--yes']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toMatch(/^Deleted run 1 of suite hygiene, started \S+: 2 items and everything recorded of them, from /);
    expect(Object.values(recorded(dbPath, 1)).every((n) => n === 0)).toBe(true);
    expect(recorded(dbPath, 2)).toMatchObject({ items: 2, turns: 2 });
    const runs = JSON.parse((await runChildCli(['runs', '--db', dbPath, '--json'])).stdout) as Array<{ id: number }>;
    expect(runs.map((r) => r.id)).toEqual([2]);
    const again = await runChildCli(['runs', 'delete', '1', '--db', dbPath, '--yes']);
    expect(again.code).toBe(8);
    expect(again.stderr).toContain('no run 1 in');
  }, 60_000);

  it('runs delete refuses a run another live dsbench is running (exit 7), and deletes nothing', async ({ expect }) => {
    // Answers in 20 s of real time: the run is still going when the delete comes.
    const e = await emulator({ seed: 5, timeScale: 0.4, medianMs: 50_000, sigma: 0 });
    const dbPath = path.join(tempDir(), 'held.db');
    const child = startCli(['run', writeSuite(SUITE), '--endpoint', e.url, '--db', dbPath, '--reporter', 'quiet'], { SRC_ACCESS_TOKEN: e.adminToken });
    try {
      await until('the run to hold its lease', () => peek(dbPath, (db) => leaseHolder(db, 1)?.pid === child.process.pid), 30_000);
      const refused = await runChildCli(['runs', 'delete', '1', '--db', dbPath, '--yes']);
      expect(refused.code, refused.stderr).toBe(7);
      expect(refused.stderr).toContain(`run 1 is being run by another dsbench (pid ${child.process.pid} on host `);
      expect(recorded(dbPath, 1)).toMatchObject({ items: 2, run_leases: 1 });
    } finally {
      child.process.kill('SIGKILL');
      await child.exited;
    }
    // Its process gone, the run can be deleted.
    const deleted = await runChildCli(['runs', 'delete', '1', '--db', dbPath, '--yes']);
    expect(deleted.code, deleted.stderr).toBe(0);
  }, 60_000);
});
