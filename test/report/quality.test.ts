import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPlan } from '../../src/cli/plan.js';
import { runCompare } from '../../src/cli/compare.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { writeReport } from '../../src/report/report.js';
import { writeHistory } from '../../src/report/history-report.js';
import { completed, failed, question, recordRun, useTempStore, type TempStore } from './fixtures.js';

let t: TempStore;
useTempStore((x) => (t = x));

const sink = () => {
  const out = { text: '', write: (s: string) => ((out.text += s), true) };
  return out;
};
const check = (passed: boolean) => [{ name: 'contains', passed, reason: passed ? 'found' : 'missing' }];

/** q0 passes one repeat of two, q1 both; their latencies as given. */
function night(q0: [boolean, boolean], q1: [boolean, boolean], ms: [number, number] = [1000, 1000], tags: string[] = []) {
  return recordRun(t.store, [
    ...[0, 1].map((r) => ({ item: question('q0', 'prod', r, tags), turns: [completed({ serverMs: ms[0] })], expectations: check(q0[r]!) })),
    ...[0, 1].map((r) => ({ item: question('q1', 'prod', r), turns: [completed({ serverMs: ms[1] })], expectations: check(q1[r]!) })),
  ]);
}

describe('quality of a run and across runs', () => {
  it('report: pass rate over questions with its interval, pass^2, pass@2 and the flaky question', async () => {
    night([true, false], [true, true]);
    const r = await writeReport({ db: t.db, run: 'latest', out: path.join(t.dir, 'r'), formats: new Set(['md', 'json']) });
    const q = r.data.quality.targets[0]!;
    // q0: pass^2 = C(1,2)/C(2,2) = 0, pass@2 = 1; q1: 1 and 1.
    expect(q).toMatchObject({ target: 'prod', k: 2, flaky: ['q0'], passRate: { value: 0.75, n: 4, clusters: 2 }, passHatK: { value: 0.5 }, passAtK: { value: 1 } });
    expect(r.markdown).toContain('## Quality and consistency');
    expect(r.markdown).toContain('`prod/q0` flaky: 1 of 2 repeats passed, flip rate 100.0%');
    const json = JSON.parse(fs.readFileSync(path.join(t.dir, 'r', 'report.json'), 'utf8')) as { quality: { targets: Array<{ passRate: { low: number; high: number } }> } };
    expect(json.quality.targets[0]!.passRate.low).toBeLessThanOrEqual(0.75);
    expect(json.quality.targets[0]!.passRate.high).toBeGreaterThanOrEqual(0.75);
  });

  it('quarantined questions are listed and left out of the figures and the gates', async () => {
    night([true, true], [true, true], [1000, 1000], ['quarantine']);
    night([false, false], [true, true], [1000, 1000], ['quarantine']);
    const r = await writeReport({ db: t.db, run: 'latest', out: path.join(t.dir, 'r'), formats: new Set(['md']) });
    expect(r.data.quality.targets[0]).toMatchObject({ quarantined: ['q0'], passRate: { value: 1, clusters: 1 } });
    const out = sink();
    const code = await runCompare({ baseline: 'latest~1', candidate: 'latest', db: t.db, out: path.join(t.dir, 'c'), format: 'json', failOn: 'pass-rate,new-errors', minPairs: 1 }, out);
    expect(code).toBe(ExitCode.ok);
    const json = JSON.parse(out.text) as { summary: { outcomes: { passRate: { n: number }; quarantined: { ids: string[] } } } };
    expect(json.summary.outcomes.quarantined.ids).toEqual(['prod/q0']);
    expect(json.summary.outcomes.passRate.n).toBe(2);
  });

  it('history: each question night by night; flaky across nights, an error is not a flip', async () => {
    night([true, true], [true, true]);
    night([false, false], [true, true]);
    recordRun(t.store, [
      ...[0, 1].map((r) => ({ item: question('q0', 'prod', r), turns: [completed()], expectations: check(true) })),
      { item: question('q1', 'prod', 0), turns: [failed('TOKEN_LIMIT_EXCEEDED')], expectations: check(false) },
      { item: question('q1', 'prod', 1), turns: [completed()], expectations: check(true) },
    ]);
    const h = await writeHistory({ db: t.db, limit: 3, out: path.join(t.dir, 'h'), formats: new Set(['md', 'json']) });
    expect(h.markdown).toContain('## Questions night by night');
    expect(h.markdown).toMatch(/\| q0 +\| flaky +\| 2\/2 +\| 0\/2 +\| 2\/2 +\|/);
    expect(h.markdown).toMatch(/\| q1 +\| +\| 2\/2 +\| 2\/2 +\| 1\/2 \(1 error\) +\|/);
  });

  it('history: an error the suite expected is a pass, never "(1 error)", and does not hide a failing repeat beside it', async () => {
    for (let n = 0; n < 2; n++) {
      recordRun(t.store, [
        // q0's error is expected (its checks hold); its other repeat fails its check.
        { item: question('q0', 'prod', 0), turns: [failed('TOKEN_LIMIT_EXCEEDED')], expectations: check(true) },
        { item: question('q0', 'prod', 1), turns: [completed()], expectations: check(n === 0) },
      ]);
    }
    const h = await writeHistory({ db: t.db, limit: 2, out: path.join(t.dir, 'h'), formats: new Set(['md']) });
    // Before: "2/2 (1 error)" then "1/2 (1 error)", the failed repeat cancelled by the expected error, and q0 not flaky.
    expect(h.markdown).toMatch(/\| q0 +\| flaky +\| 2\/2 +\| 1\/2 +\|/);
  });

  it('history: a step between nights is a regression, not flaky; both outcomes within a night is flaky', async () => {
    night([true, true], [true, false]);
    night([true, true], [true, true]);
    const third = night([false, false], [true, true]);
    const h = await writeHistory({ db: t.db, limit: 3, out: path.join(t.dir, 'h'), formats: new Set(['md', 'json']) });
    // q0 went 2/2, 2/2, then 0/2: a regression at the third run, not a flaky question to quarantine.
    expect(h.markdown).toMatch(new RegExp(`\\| q0 +\\| regressed at run ${third} +\\| 2/2 +\\| 2/2 +\\| 0/2 +\\|`));
    expect(h.markdown).toMatch(/\| q1 +\| flaky +\| 1\/2 +\| 2\/2 +\| 2\/2 +\|/);
    const json = JSON.parse(fs.readFileSync(path.join(t.dir, 'h', 'history.json'), 'utf8')) as { questions: { rows: Array<{ id: string; flaky: boolean; step: unknown }> } };
    expect(json.questions.rows.find((r) => r.id === 'q0')).toMatchObject({ flaky: false, step: { runId: third, direction: 'regressed' } });
  });

  it('plan: the noise of two runs and the questions needed to detect a change', async () => {
    night([true, false], [true, true], [1000, 1000]);
    night([true, true], [true, false], [2000, 1000]);
    const out = sink();
    await runPlan({ db: t.db, detectLatency: '30%', detectPassRate: '10%', maxLatencyRegression: '20%', confidence: 95, json: true }, out);
    const plan = JSON.parse(out.text) as { baseline: number; candidate: number; noise: { latency: { between: number; within: number; pairs: number }; passRate: { variance: number; questions: number } }; table: Array<{ repeats: number; passRate: number }> };
    expect(plan).toMatchObject({ baseline: 1, candidate: 2 });
    // Log-ratios: q0 ln 2 twice, q1 0 twice: within 0; question means ln 2 and 0 vary by (ln 2)^2 / 2.
    expect(plan.noise.latency.within).toBeCloseTo(0, 12);
    expect(plan.noise.latency.between).toBeCloseTo(Math.log(2) ** 2 / 2, 12);
    // p(1-p) unbiased per question over both runs' repeats: 3 of 4 passed each, 3 * 1 / (4 * 3) = 0.25.
    expect(plan.noise.passRate).toEqual({ questions: 2, variance: 0.25 });
    // Items for a 10-point drop at the pass-rate gate's one-sided 2.2% (8/18 of 5%), 80% power, the drop's own
    // failures counted: (2.0101 + 0.8416)^2 * (2 * 0.25 + 0.1) / 0.01 = 487.9.
    expect(plan.table.find((r) => r.repeats === 1)!.passRate).toBe(488);
    const text = sink();
    await runPlan({ db: t.db, detectLatency: '30%', detectPassRate: '10%', maxLatencyRegression: '20%', confidence: 95 }, text);
    expect(text.text).toContain('noise measured between runs 1 and 2');
    await expect(runPlan({ db: t.db, baseline: '2', candidate: '2', detectLatency: '30%', detectPassRate: '10%', maxLatencyRegression: '20%', confidence: 95 }, sink())).rejects.toThrow(/two runs/);
    await expect(runPlan({ db: t.db, detectLatency: 'lots', detectPassRate: '10%', maxLatencyRegression: '20%', confidence: 95 }, sink())).rejects.toThrow(/--detect-latency takes a percentage/);
  });
});

describe('rate gates through compare', () => {
  it('pass-k fails on a clear drop of consistency; bad values of the new flags name the flag', async () => {
    const q = (id: string, r: number, pass: boolean) => ({ item: question(id, 'prod', r), turns: [completed()], expectations: check(pass) });
    const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    recordRun(t.store, ids.flatMap((id) => [q(id, 0, true), q(id, 1, true)]));
    recordRun(t.store, ids.flatMap((id) => [q(id, 0, true), q(id, 1, false)]));
    const out = sink();
    const code = await runCompare({ baseline: 'latest~1', candidate: 'latest', db: t.db, out: path.join(t.dir, 'k'), format: 'json', failOn: 'pass-k' }, out);
    expect(code).toBe(ExitCode.expectationsFailed);
    const json = JSON.parse(out.text) as { summary: { outcomes: { passHatK: { k: number; baseline: number; candidate: number; test: { pLower: number } } }; gates: Array<{ name: string; failed: boolean; detail: string }> } };
    // Every question: pass^2 from 1 to 0; 8 questions all one way: p = 0.5^8.
    expect(json.summary.outcomes.passHatK).toMatchObject({ k: 2, baseline: 1, candidate: 0 });
    expect(json.summary.outcomes.passHatK.test.pLower).toBeLessThan(0.01);
    expect(json.summary.gates.find((g) => g.name === 'pass-k')).toMatchObject({ failed: true });
    await expect(runCompare({ baseline: 'latest~1', candidate: 'latest', db: t.db, maxErrorRateRise: 'lots' }, sink())).rejects.toThrow(/--max-error-rate-rise takes a percentage/);
    await expect(runCompare({ baseline: 'latest~1', candidate: 'latest', db: t.db, failOn: 'pass-kk' }, sink())).rejects.toThrow(/--fail-on: pass-kk is not one of .*pass-k.*any-new-error/);
  });
});
