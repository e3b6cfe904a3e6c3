import { WIDE } from '../helpers/cli-here.js';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCompare } from '../../src/cli/compare.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { TargetInfo } from '../../src/model/run.js';
import type { Store } from '../../src/store/store.js';
import { completed, question, recordRun, useTempStore } from './fixtures.js';

let dir: string;
let db: string;
let store: Store;
useTempStore((t) => ({ dir, db, store } = t));

const targets: TargetInfo[] = [{ name: 'prod', url: 'https://prod.example.com', api: 'legacy', emulated: false }];
const sink = () => {
  let text = '';
  return { write: (t: string) => (text += t), get text() { return text; } };
};
const check = (passed: boolean) => [{ name: 'contains', passed, reason: passed ? 'found' : 'missing' }];

/** 12 questions x `repeats`, all passing except those in `failing` (every repeat fails). */
function night(repeats: number, failing: number[]) {
  return recordRun(
    store,
    Array.from({ length: 12 }, (_, q) =>
      Array.from({ length: repeats }, (_, r) => ({ item: question(`q${q}`, 'prod', r), turns: [completed({ serverMs: 1000 + q * 10 })], expectations: check(!failing.includes(q)) })),
    ).flat(),
    { targets },
  );
}

describe('the verdict for people', () => {
  it('failed: items by question, the false-alarm rate, a next step naming the questions to ask again', async () => {
    const b = night(2, []);
    const c = night(2, [0, 1, 2, 3, 4, 5]);
    const out = sink();
    const code = await runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'f'), format: 'text' }, out, WIDE);
    expect(code).toBe(ExitCode.expectationsFailed);
    // One line a question with its repeats, not one a repeat.
    expect(out.text).toContain('Expectations newly failing (12 items, 6 questions)');
    expect(out.text).toMatch(/q0 #0 turn 0, #1 turn 0: pass → fail/);
    expect(out.text).not.toMatch(/q0#1/);
    expect(out.text).toMatch(/The 4 test gates together go red on at most 5% of nights where nothing changed \(weighted Holm, one-sided, before a failed gate passes its level on: .*new-errors 2\.2%, pass-rate 2\.2%/);
    expect(out.text).toMatch(/Next: read the questions listed below .*dsbench run \S+ --only q0 --only q1 --only q2 --only q3 --only q4 --only q5 --repeats 5/);
  });

  it('a near miss is "passed, near the limit" with its p-value; the detectable drop is never cut', async () => {
    // 5 of 12 questions fail once: 5 clusters one way, p = 0.5^5 = 0.031, above the pass-rate gate's level
    // (8/18 of 5% = 2.2%) and below twice it.
    const b = night(1, []);
    const c = night(1, [0, 1, 2, 3, 4]);
    const out = sink();
    const code = await runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'n'), format: 'text' }, out, WIDE);
    // Near the limit is the suspect tier: exit 11, not red.
    expect(code).toBe(ExitCode.suspect);
    expect(out.text).toMatch(/pass-rate\s+yes\s+[\d.]+%\s+passed, near the limit \(p = 0\.031\)/);
    expect(out.text).toMatch(/pass-rate: pass rate 100\.0% → 58\.3%.*could have detected a drop of \d+\.\d points or more over 12 items/);
    expect(out.text).toMatch(/Next: nothing failed, but pass-rate passed near the limit; watch the next nights with dsbench report --history 7/);
  });

  it('passed far from every limit: nothing to do', async () => {
    const b = night(1, []);
    const c = night(1, []);
    const out = sink();
    expect(await runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'p'), format: 'text' }, out, WIDE)).toBe(ExitCode.ok);
    expect(out.text).toContain('Next: nothing to do');
    expect(out.text).not.toContain('near the limit');
  });

  it('a gate that judged nothing says why, and one that is off says what it would do, never "passed", in every output', async () => {
    // 3 pairs, fewer than --min-pairs 5, no checks: the metric gates (off, so nothing is starved) and the
    // pass-rate gates have nothing to judge; the event gates judge and are off.
    const few = () => recordRun(store, [0, 1, 2].map((q) => ({ item: question(`q${q}`), turns: [completed({ serverMs: 1000 + q * 10 })] })), { targets });
    const b = few();
    const c = few();
    const out = sink();
    const junit = path.join(dir, 'j.xml');
    const args = { baseline: String(b), candidate: String(c), db, out: path.join(dir, 'u'), maxLatencyRegression: 'off', maxCreditsRegression: 'off', html: true, junit };
    expect(await runCompare({ ...args, format: 'text' }, out, WIDE)).toBe(ExitCode.ok);
    const md = fs.readFileSync(path.join(dir, 'u', 'compare.md'), 'utf8');
    for (const [gate, on, result] of [
      ['latency regression', 'no', 'not judged: too few pairs'],
      ['pass-rate', 'yes', 'not judged: no item checked on both sides'],
      ['pass-k', 'no', 'not judged: no question has 1 repeat'],
      ['count-changes', 'no', 'would pass'],
    ]) {
      expect(out.text).toMatch(new RegExp(`^ *${gate} +${on} +\\S+ +${result}$`, 'm'));
      expect(md).toMatch(new RegExp(`^\\| ${gate} +\\| ${on} +\\| \\S+ +\\| ${result} +\\|$`, 'm'));
    }
    expect(out.text).toMatch(/^ *new-errors +yes +\S+ +passed$/m);
    expect(out.text).not.toMatch(/^ *(latency regression|pass-rate|pass-k|count-changes) .*passed/m);
    const html = fs.readFileSync(path.join(dir, 'u', 'compare.html'), 'utf8');
    expect(html).toContain('"name":"pass-rate","enabled":true,"failed":false');
    expect(html).toMatch(/"name":"pass-rate"[^}]*"outcome":"not judged: no item checked on both sides"/);
    const xml = fs.readFileSync(junit, 'utf8');
    expect(xml).toMatch(/name="latency regression" time="0.000">\s*<skipped message="not judged: too few pairs \(off\): 3 comparable pairs, fewer than 5: not judged"/);
    expect(xml).toMatch(/name="pass-rate" time="0.000">\s*<skipped message="not judged: no item checked on both sides: /);
    expect(xml).toMatch(/name="new-errors" time="0.000"\/>/);
  });

  it('counts read "1 question", and a metric no gate judges shows no detectable change', async () => {
    // One question asked twice: pass^2 and the rate tests are over 1 question; tokens and tool calls have no threshold.
    const one = () => recordRun(store, [0, 1].map((r) => ({ item: question('q0', 'prod', r), turns: [completed({ serverMs: 1000 })], expectations: check(true) })), { targets });
    const b = one();
    const c = one();
    const out = sink();
    await runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'o'), minPairs: 1, format: 'text' }, out, WIDE);
    expect(out.text).toContain('over 1 question,');
    expect(out.text).toContain('could not be red with 1 question (the smallest p-value 1 question can give is 0.50');
    expect(out.text).not.toMatch(/\b1 questions\b/);
    expect(out.text).toMatch(/^tokens .* off +– +unchanged$/m);
    expect(out.text).toMatch(/^ *- tokens regression: unchanged \([^)]*\), threshold off$/m);
    expect(out.text).not.toContain('could have detected +0.0%');
  });
});
