import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFormats, runReport } from '../../src/cli/report.js';
import { runRuns } from '../../src/cli/runs.js';
import { UsageError } from '../../src/errors/errors.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { Store } from '../../src/store/store.js';
import { prepareCli } from '../helpers/cli.js';
import { dsbenchHere, WIDE } from '../helpers/cli-here.js';
import { completed, csvObjects, failed, question, recordRun, useTempStore } from './fixtures.js';

let dir: string;
let db: string;
let store: Store;
useTempStore((t) => ({ dir, db, store } = t));

const sink = () => {
  let text = '';
  return { write: (t: string) => (text += t), get text() { return text; } };
};

function seedRuns(): number[] {
  const one = [{ name: 'prod', url: 'https://prod.example.com', api: 'legacy' as const, emulated: false }];
  return [0, 1, 2].map((n) =>
    recordRun(
      store,
      ['q1', 'q2', 'q3'].map((id, i) => ({
        item: question(id),
        turns: [n === 2 && i === 0 ? failed() : completed({ serverMs: 1000 + 100 * i + 10 * n, credits: 1 + n })],
        expectations: [{ name: 'contains', passed: !(n === 2 && i === 0), reason: 'r' }],
      })),
      { targets: one, info: { startedAt: `2025-03-0${n + 1}T00:00:00.000Z`, ...(n === 1 && { label: 'adhoc' }) } },
    ),
  );
}

describe('dsbench runs', () => {
  it('lists runs newest first as text and JSON', async () => {
    const ids = seedRuns();
    const out = sink();
    expect(await runRuns({ db, limit: 2 }, out, 10_000)).toBe(ExitCode.ok);
    const lines = out.text.trim().split('\n');
    expect(lines[0]).toMatch(/^id\s+label\s+suite\s+targets\s+version\s+started \(UTC\)\s+status\s+verdict\s+items\s+outcomes\s+checks\s+credits$/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(new RegExp(`^\\s*${ids[2]}\\s+nightly\\s+smoke\\s+prod\\s+unknown\\s+2025-03-03 00:00:00\\s+completed\\s+checks failed \\(exit 1\\)\\s+3\\s+completed 2, error 1\\s+1 of 3 failed\\s+6$`));
    const json = sink();
    await runRuns({ db, limit: 20, json: true, suite: 'smoke' }, json);
    expect((JSON.parse(json.text) as Array<{ id: number }>).map((r) => r.id)).toEqual([...ids].reverse());
    const none = sink();
    await runRuns({ db, limit: 5, suite: 'other' }, none);
    expect(none.text).toBe(`No runs of suite other in ${db}.\n`);
    await expect(runRuns({ db, limit: 0 }, sink())).rejects.toThrow(UsageError);
    await expect(runRuns({ db: path.join(dir, 'none.db'), limit: 5 }, sink())).rejects.toThrow(/no results database/);
  });

  it('marks a run on the embedded emulator, whose answers are emulated, and says credits were not measured where none were reported', async () => {
    const emulated = [{ name: 'emulator', url: 'http://127.0.0.1:1', api: 'versioned' as const, emulated: true }];
    const id = recordRun(store, [{ item: question('q1', 'emulator'), turns: [completed({ stats: undefined })] }], { targets: emulated });
    const out = sink();
    await runRuns({ db, limit: 1 }, out, 10_000);
    expect(out.text.trim().split('\n')[1]).toMatch(new RegExp(`^\\s*${id}\\s+nightly\\s+smoke\\s+emulator \\(emulated\\)\\s+.*\\snot measured$`));
    const json = sink();
    await runRuns({ db, limit: 1, json: true }, json);
    expect(JSON.parse(json.text)).toMatchObject([{ id, emulated: true, credits: null }]);
  });
});

describe('dsbench report', () => {
  it('parses formats', () => {
    expect([...parseFormats('csv')]).toEqual(['csv']);
    expect([...parseFormats('csv, MD')]).toEqual(['csv', 'md']);
    expect(() => parseFormats('xlsx')).toThrow(/xlsx is not one of csv, md, json/);
    expect(() => parseFormats('')).toThrow(UsageError);
  });

  it('prints the terminal summary, Markdown or JSON', async () => {
    const [, , last] = seedRuns();
    const text = sink();
    await runReport({ db, out: path.join(dir, 'a'), format: 'csv' }, text);
    expect(text.text).toContain(`dsbench report: run ${last} nightly, suite smoke`);
    expect(fs.readdirSync(path.join(dir, 'a')).sort()).toEqual(['costs.csv', 'questions.csv', 'search-summary.csv', 'searches.csv', 'summary.csv']);
    const md = sink();
    await runReport({ db, run: 'adhoc', out: path.join(dir, 'b'), format: 'md' }, md);
    expect(md.text).toMatch(/^## dsbench report: run 2 `adhoc`/);
    const json = sink();
    await runReport({ db, out: path.join(dir, 'c'), format: 'csv', json: true }, json);
    expect(JSON.parse(json.text)).toMatchObject({ run: { id: last }, files: expect.arrayContaining([path.join(dir, 'c', 'report.json')]) as unknown });
  });

  it('--history N --suite: a trend row per run and target, oldest first', async () => {
    const ids = seedRuns();
    recordRun(store, [{ item: question('x'), turns: [completed()] }], { info: { suiteName: 'other' } });
    const out = sink();
    await runReport({ db, history: 2, suite: 'smoke', out: path.join(dir, 'h'), format: 'csv' }, out);
    const rows = csvObjects(path.join(dir, 'h', 'history.csv'));
    expect(rows.map((r) => r.run_id)).toEqual([String(ids[1]), String(ids[2])]);
    // The item that erred counts once, in failed: the pass rate is of the two that did not (compare's).
    expect(rows[1]).toMatchObject({ suite: 'smoke', target: 'prod', questions: '3', completed: '2', failed: '1', expect_items: '3', pass_rate: '1', server_ms_p50: '1120', server_ms_p90: '1220', credits_sum: '6', credits_mean: '2' });
    expect(rows[0]).toMatchObject({ label: 'adhoc', pass_rate: '1', server_ms_p50: '1110', credits_sum: '6', credits_mean: '2', error_rate: '0' });
    expect(out.text).toContain('dsbench history: suite smoke');
    expect(out.text.replace(/\s+/g, ' ')).toContain('The pass rate is of the items that did not err');
    // Without --suite: the suite of the newest run ("other").
    const latest = sink();
    await runReport({ db, history: 5, out: path.join(dir, 'h2'), format: 'json' }, latest);
    expect(JSON.parse(latest.text)).toMatchObject({ suite: 'other', rows: expect.arrayContaining([expect.objectContaining({ suite: 'other', target: 'prod', questions: 1 })]) as unknown });
    await expect(runReport({ db, history: 5, suite: 'nope', format: 'csv' }, sink())).rejects.toThrow(/no runs of suite "nope"/);
    await expect(runReport({ db, history: 5, suite: 'nope', format: 'csv' }, sink())).rejects.toMatchObject({ exitCode: ExitCode.nothingCompared });
    await expect(runReport({ db, history: 2, run: '1', format: 'csv' }, sink())).rejects.toThrow(/either a run or --history/);
    await expect(runReport({ db, suite: 'smoke', format: 'csv' }, sink())).rejects.toThrow(/--suite goes with --history/);
  });
});

describe('commands through runCli, in process', () => {
  it('runs report, runs and compare; compare sets exit code 1 when a gate fails', async () => {
    seedRuns();
    const runs = await dsbenchHere(['runs', '--db', db, '--limit', '1'], WIDE);
    expect(runs.stdout).toMatch(/^id\s+label/);
    const report = await dsbenchHere(['report', 'latest', '--db', db, '--out', path.join(dir, 'r'), '--format', 'md']);
    expect(report.stdout).toMatch(/^## dsbench report/);
    expect(report.code).toBe(0);
    const failing = await dsbenchHere(['compare', 'latest~1', 'latest', '--db', db, '--out', path.join(dir, 'c'), '--fail-on', 'any-new-error']);
    expect(failing.code).toBe(ExitCode.expectationsFailed);
    // Two latency pairs are too few for the default --min-pairs 5: the gate cannot pass on them.
    const tooFew = await dsbenchHere(['compare', 'latest~1', 'latest', '--db', db, '--out', path.join(dir, 'c1'), '--fail-on', 'none', '--max-credits-regression', 'off']);
    expect(tooFew.code).toBe(ExitCode.nothingCompared);
    const passing = await dsbenchHere(['compare', 'latest~1', 'latest', '--db', db, '--out', path.join(dir, 'c2'), '--fail-on', 'none', '--max-credits-regression', 'off', '--min-pairs', '2', '--json']);
    expect(passing.code).toBe(0);
    expect(JSON.parse(passing.stdout)).toMatchObject({ failed: false });
    for (const [args, message] of [
      [['report', '--db', db, '--format', 'xml'], /xml is not one of/],
      [['report', '--db', db, '--history', '-1'], /--history must be a positive/],
      [['compare', '--db', db], /Not enough non-option arguments/],
    ] as const) {
      const usage = await dsbenchHere([...args]);
      expect(usage.code, args.join(' ')).toBe(ExitCode.usage);
      expect(usage.stderr, args.join(' ')).toMatch(message);
    }
  });
});

describe('the CLI as a child process', () => {
  it('exits 0, 1 and 2 as documented', async () => {
    seedRuns();
    store.close();
    const cli = prepareCli();
    const report = await cli.run(['report', '--db', db, '--out', path.join(dir, 'out')]);
    expect(report.stderr).toBe('');
    expect(report.code).toBe(0);
    expect(report.stdout).toContain('dsbench report: run 3');
    expect(fs.existsSync(path.join(dir, 'out', 'questions.csv'))).toBe(true);
    const compare = await cli.run(['compare', '1', '3', '--db', db, '--out', path.join(dir, 'cmp'), '--format', 'md', '--fail-on', 'any-new-error']);
    expect(compare.code).toBe(1);
    expect(compare.stdout).toContain('## dsbench compare: FAILED');
    const missing = await cli.run(['report', '7', '--db', db]);
    expect(missing.code).toBe(ExitCode.nothingCompared);
    expect(missing.stderr).toBe(`dsbench: no run 7 in ${db}; dsbench runs --db ${db} lists the runs.\n`);
  });
});
