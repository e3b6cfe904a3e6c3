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
    const code = await runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'f'), format: 'text' }, out);
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
    const code = await runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'n'), format: 'text' }, out);
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
    expect(await runCompare({ baseline: String(b), candidate: String(c), db, out: path.join(dir, 'p'), format: 'text' }, out)).toBe(ExitCode.ok);
    expect(out.text).toContain('Next: nothing to do');
    expect(out.text).not.toContain('near the limit');
  });
});
