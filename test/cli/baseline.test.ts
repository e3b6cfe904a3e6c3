import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { compareRuns } from '../../src/report/compare/compare.js';
import { runRow } from '../../src/store/queries.js';
import type { Store } from '../../src/store/store.js';
import { dsbenchHere } from '../helpers/cli-here.js';
import { type ItemScript, completed, csvObjects, question, recordRun, useTempStore } from '../report/fixtures.js';

let dir: string;
let db: string;
let store: Store;
useTempStore((t) => ({ dir, db, store } = t));

const PROD = [{ name: 'prod', url: 'https://prod.example.com', api: 'legacy' as const, emulated: false }];
const pass = [{ name: 'contains', passed: true, reason: 'ok' }];
const fail = [{ name: 'contains', passed: false, reason: 'no' }];

/** A night of `questions` x `repeats`: every item passes at `ms`, but those `failing` picks. */
function night(n: number, o: { questions?: number; repeats?: number; ms?: number; failing?: (q: number, r: number) => boolean; label?: string } = {}): number {
  const scripts: ItemScript[] = [];
  for (let q = 0; q < (o.questions ?? 4); q++) {
    for (let r = 0; r < (o.repeats ?? 2); r++) {
      const bad = o.failing?.(q, r) ?? false;
      scripts.push({ item: question(`q${q}`, 'prod', r), turns: [completed({ serverMs: (o.ms ?? 1000) + 10 * q })], expectations: bad ? fail : pass });
    }
  }
  return recordRun(store, scripts, { targets: PROD, info: { startedAt: `2025-03-${String(n).padStart(2, '0')}T00:00:00.000Z`, label: o.label ?? 'nightly' } });
}

const here = (...args: string[]) => dsbenchHere([...args, '--db', db]);

describe('dsbench baseline bless, list, drop', () => {
  it('names a passing run, lists it, compares with blessed:<name>, moves the name when blessed again and drops it', async () => {
    const first = night(1);
    const second = night(2);
    const candidate = night(3);
    const blessed = await here('baseline', 'bless', String(first), '--name', 'release-7.0');
    expect(blessed).toMatchObject({ code: 0 });
    expect(blessed.stdout).toContain(`Blessed run ${first} (nightly) of suite smoke`);
    expect((await here('baseline', 'list')).stdout).toMatch(new RegExp(`release-7\\.0\\s+${first}\\s+nightly\\s+smoke`));
    const compared = await here('compare', 'blessed:release-7.0', String(candidate), '--out', path.join(dir, 'c1'));
    expect(compared.code).toBe(0);
    expect(compared.stdout).toContain(`Baseline: run ${first}`);

    const moved = await here('baseline', 'bless', String(second), '--name', 'release-7.0');
    expect(moved.stdout).toContain(`it named run ${first} before, and now names this one`);
    const json = JSON.parse((await here('baseline', 'list', '--json')).stdout) as Array<{ name: string; runId: number; forced: boolean }>;
    expect(json).toEqual([expect.objectContaining({ name: 'release-7.0', runId: second, forced: false })]);

    expect(await here('baseline', 'drop', 'release-7.0')).toMatchObject({ code: 0, stdout: expect.stringContaining('its run is kept') });
    expect((await here('baseline', 'list')).stdout).toContain('No baselines');
    expect(runRow(store.db, second)).toBeDefined();
  });

  it('refuses a run whose verdict failed, one that asked nothing and one still running, unless --force, saying why', async () => {
    const failing = night(1, { failing: (q) => q === 0 });
    const nothing = recordRun(store, [{ item: question('q0'), leave: 'pending' }], { targets: PROD });
    const running = recordRun(store, [{ item: question('q0'), turns: [completed()], leave: 'running' }], { targets: PROD, status: 'running' });
    const refusals = await Promise.all([failing, nothing, running].map((id) => here('baseline', 'bless', String(id), '--name', 'x')));
    expect(refusals.map((r) => r.code)).toEqual([ExitCode.usage, ExitCode.usage, ExitCode.usage]);
    expect(refusals[0]!.stderr).toContain('its verdict did not pass (checks failed, exit 1)');
    expect(refusals[1]!.stderr).toContain('it asked nothing');
    expect(refusals[2]!.stderr).toContain(`it is still running (or was killed before it ended: resume it first with dsbench run --resume ${running})`);
    expect(refusals[0]!.stderr).toContain('add --force');
    expect((await here('baseline', 'list')).stdout).toContain('No baselines');

    const forced = await here('baseline', 'bless', String(failing), '--name', 'x', '--force');
    expect(forced).toMatchObject({ code: 0, stdout: expect.stringContaining('Blessed with --force although its verdict did not pass') });
    expect(JSON.parse((await here('baseline', 'list', '--json')).stdout)).toEqual([expect.objectContaining({ name: 'x', runId: failing, forced: true })]);
  });

  it('refuses a bad name, an unknown run, and an unknown name to drop or compare with, listing the names there are', async () => {
    const id = night(1);
    expect(await here('baseline', 'bless', String(id), '--name', 'a b')).toMatchObject({ code: ExitCode.usage, stderr: expect.stringContaining("letters, digits, '.'") });
    expect(await here('baseline', 'bless', '99', '--name', 'x')).toMatchObject({ code: ExitCode.nothingCompared, stderr: expect.stringContaining('no run 99') });
    expect(await here('baseline', 'drop', 'nope')).toMatchObject({ code: ExitCode.usage, stderr: expect.stringContaining('none is blessed') });
    await here('baseline', 'bless', String(id), '--name', 'good');
    await here('baseline', 'bless', String(id), '--name', 'last-release');
    const unknown = await here('compare', 'blessed:nope', 'latest');
    expect(unknown.code).toBe(ExitCode.usage);
    expect(unknown.stderr).toContain('no baseline named "nope"');
    expect(unknown.stderr).toContain('the names are: good, last-release (dsbench baseline list shows their runs; dsbench baseline bless <run> --name nope makes this one)');
    expect(await here('report', 'blessed:nope')).toMatchObject({ code: ExitCode.usage, stderr: expect.stringContaining('the names are: good, last-release') });
  });

  it('a deleted run takes its names with it', async () => {
    const id = night(1);
    await here('baseline', 'bless', String(id), '--name', 'gone');
    expect(await here('runs', 'delete', String(id), '--yes')).toMatchObject({ code: 0 });
    expect((await here('baseline', 'list')).stdout).toContain('No baselines');
  });
});

describe('window:K baselines', () => {
  it('pools the last K passing runs of the suite before the candidate, names them, and says when fewer than K were there', async () => {
    const n1 = night(1);
    night(2, { failing: (q) => q === 1 });
    const n3 = night(3);
    const n4 = night(4);
    const candidate = night(5);
    night(6);
    const three = await here('compare', 'window:3', String(candidate), '--out', path.join(dir, 'w3'));
    expect(three.code).toBe(0);
    expect(three.stdout).toContain(`window:3, 3 runs pooled (${n4}, ${n3}, ${n1})`);
    expect(three.stdout).not.toContain('asked for');
    const five = await here('compare', 'window:5', String(candidate), '--out', path.join(dir, 'w5'), '--format', 'json');
    expect(JSON.parse(five.stdout).baseline.window).toEqual({ requested: 5, runIds: [n4, n3, n1] });
    const text = await here('compare', 'window:5', String(candidate), '--out', path.join(dir, 'w5'));
    expect(text.stdout).toContain('3 runs pooled (4, 3, 1): fewer than the 5 asked for');
    // Each pooled pair names the run its baseline side came from.
    expect(new Set(csvObjects(path.join(dir, 'w3', 'compare.csv')).map((r) => r.baseline_run_id))).toEqual(new Set([n4, n3, n1].map(String)));
  });

  it('keeps a question repeated over K nights one cluster: intervals resample questions, every repeat of every night counts', async () => {
    // Only nights whose verdict passed are pooled: no check failed in them.
    for (let n = 1; n <= 3; n++) night(n, { questions: 5, repeats: 2, ms: 1000 + n });
    const candidate = night(4, { questions: 5, repeats: 2, ms: 1500, failing: (q) => q < 3 });
    const result = await compareRuns({ baseline: { db, run: 'window:3' }, candidate: { db, run: String(candidate) }, out: path.join(dir, 'w') });
    expect(result.baseline.window?.runs.map((r) => r.id)).toEqual([3, 2, 1]);
    const o = result.summary.outcomes;
    // 5 questions x 2 repeats x 3 nights paired: 30 items in 5 clusters.
    expect(o.passRate).toMatchObject({ n: 30, clusters: 5 });
    expect(o.passRate.baseline).toBe(1);
    expect(o.passRate.candidate).toBeCloseTo(4 / 10, 12);
    const latency = result.summary.metrics.find((m) => m.metric === 'latency')!;
    expect(latency).toMatchObject({ n: 30, clusters: 5 });
    expect(latency.relative).toBeCloseTo(0.5, 1);
    expect(result.summary.questions).toMatchObject({ paired: 30, baselineOnly: 0, candidateOnly: 0 });
  });

  it('lists an item only in the candidate once, not once per pooled run', async () => {
    night(1, { questions: 2 });
    night(2, { questions: 2 });
    const candidate = night(3, { questions: 3 });
    const result = await compareRuns({ baseline: { db, run: 'window:2' }, candidate: { db, run: String(candidate) }, out: path.join(dir, 'w') });
    expect(result.summary.questions).toEqual({ paired: 8, baselineOnly: 0, candidateOnly: 2 });
  });

  it('with no passing run before the candidate, says so and exits with the usage error code; never pools the candidate', async () => {
    night(1, { failing: () => true });
    const candidate = night(2);
    const none = await here('compare', 'window:3', String(candidate));
    expect(none.code).toBe(ExitCode.usage);
    // Says why (the run there failed its checks) and what to do (nights run against a blessed run, or one run).
    expect(none.stderr).toContain('window:3: nothing to pool in');
    expect(none.stderr).toContain('window pools blessed runs and finished nights whose verdict passed (suite smoke, targets prod, before run 2; judged unchanged against their own --baseline, or, run without one, every check passed), and of the 1 finished run of it none passed (checks failed: 1)');
    expect(none.stderr).toContain('Bless a night to start from (dsbench baseline bless RUN --name NAME; --force for a run that did not pass) and it pools, or compare with one run');
    expect(await here('compare', 'window:0', 'latest')).toMatchObject({ code: ExitCode.usage, stderr: expect.stringContaining('at least 1') });
    expect(await here('report', 'window:3')).toMatchObject({ code: ExitCode.usage, stderr: expect.stringContaining('only a baseline takes it') });
  });

  it('writes nothing to the runs it pools', async () => {
    const before = [night(1), night(2)].map((id) => runRow(store.db, id));
    night(3);
    await here('compare', 'window:2', 'latest', '--out', path.join(dir, 'w'));
    await here('baseline', 'bless', '1', '--name', 'b');
    await here('baseline', 'drop', 'b');
    expect([1, 2].map((id) => runRow(store.db, id))).toEqual(before);
  });
});
