// Planning: order, and bounds that hold at sizes where a naive plan overflowed the stack or memory.
import { describe, expect, it } from 'vitest';
import { parseSuite } from '../../src/config/load-suite.js';
import type { ResolvedSuite } from '../../src/config/resolve-suite.js';
import { UsageError } from '../../src/errors/errors.js';
import { planRun } from '../../src/runner/plan.js';

const base = parseSuite('name: p\nquestions:\n  - { id: q, question: Where? }\nsearches:\n  - { id: s, query: x }\n', 'p.yaml').resolved;

function withQuestions(n: number): ResolvedSuite {
  const q = base.questions[0]!;
  return { ...base, searches: [], questions: Array.from({ length: n }, (_, i) => ({ ...q, id: `q${i}` })) };
}

describe('planRun', () => {
  it('repeat 0 of every item comes before repeat 1 of any, per target', () => {
    expect(planRun(base, ['a', 'b'], 2).map((i) => i.key)).toEqual([
      'a/question/q/0', 'a/search/s/0', 'b/question/q/0', 'b/search/s/0',
      'a/question/q/1', 'a/search/s/1', 'b/question/q/1', 'b/search/s/1',
    ]);
  });

  it('plans 130,000 questions without overflowing the stack', () => {
    const items = planRun(withQuestions(130_000), ['main']);
    expect(items).toHaveLength(130_000);
    expect(items.at(-1)?.key).toBe('main/question/q129999/0');
  });

  it('refuses up front a plan larger than one run holds, naming the numbers', () => {
    expect(() => planRun(base, ['main'], 100_000_000)).toThrow(UsageError);
    expect(() => planRun(base, ['main'], 100_000_000)).toThrow(
      'the run would plan 200,000,000 items (1 question and 1 search x repeats 100,000,000 x 1 target); one run plans at most 2,000,000: lower repeats or split the suite',
    );
    expect(() => planRun(withQuestions(700_000), ['a', 'b', 'c'])).toThrow(/plan 2,100,000 items \(700,000 questions and 0 searches x their repeats x 3 targets\)/);
  });
});
