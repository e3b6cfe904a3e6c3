// The split of a plan into shards: every item in exactly one shard, the same split whatever the order of
// the suite or the machine, shards balanced in turns, and clear usage errors for bad --shard values.
import { describe, expect, it } from 'vitest';
import { parseSuite } from '../../src/config/load-suite.js';
import { planRun, type WorkItem } from '../../src/runner/plan.js';
import { parseShard, runGroupId, shardPlan } from '../../src/runner/shard.js';
import { UsageError } from '../../src/errors/errors.js';

/** A suite of `questions` questions with 0-3 follow-ups and various repeats, and `searches` searches. */
function suiteText(questions: number, searches: number, reversed = false): string {
  const q = Array.from({ length: questions }, (_, i) => {
    const followups = Array.from({ length: (i * 7) % 4 }, (_, f) => `"Follow-up ${f} of ${i}?"`);
    return `  - id: q${i}\n    question: "Question ${i}?"\n    repeats: ${1 + ((i * 5) % 3)}\n${followups.length ? `    followups: [${followups.join(', ')}]\n` : ''}`;
  });
  const s = Array.from({ length: searches }, (_, i) => `  - id: s${i}\n    query: "term${i} count:all"\n`);
  if (reversed) {
    q.reverse();
    s.reverse();
  }
  return `name: split\nquestions:\n${q.join('')}${searches ? `searches:\n${s.join('')}` : ''}`;
}

function plan(text: string, targets = ['a'], repeats?: number): WorkItem[] {
  return planRun(parseSuite(text, 'split.yaml').resolved, targets, repeats);
}

const turns = (item: WorkItem) => (item.kind === 'question' ? 1 + item.question.followups.length : 1);

describe('shardPlan', () => {
  it('puts every item in exactly one shard, with its place in the whole plan, for any shard count', () => {
    const whole = plan(suiteText(23, 9), ['a', 'b']);
    for (const count of [1, 2, 3, 4, 7, 40]) {
      const seen = new Map<string, number>();
      for (let index = 1; index <= count; index++) {
        for (const item of shardPlan(whole, { index, count })) {
          expect(seen.has(item.key), `${item.key} in two shards of ${count}`).toBe(false);
          seen.set(item.key, index);
          expect(whole[item.position!]!.key).toBe(item.key);
        }
      }
      expect(seen.size).toBe(whole.length);
    }
  });

  it('keeps each shard in plan order and all repeats of a suite item on a target in one shard', () => {
    const whole = plan(suiteText(12, 4), ['a', 'b'], 3);
    for (let index = 1; index <= 3; index++) {
      const mine = shardPlan(whole, { index, count: 3 });
      const positions = mine.map((i) => i.position!);
      expect(positions).toEqual([...positions].sort((x, y) => x - y));
      const units = new Set(mine.map((i) => `${i.target}/${i.kind}/${i.suiteItemId}`));
      for (const item of whole) {
        if (units.has(`${item.target}/${item.kind}/${item.suiteItemId}`)) expect(mine.some((m) => m.key === item.key)).toBe(true);
      }
    }
  });

  it('gives the same split whatever the order of the suite (by item identity, not position)', () => {
    const split = (text: string) =>
      [1, 2, 3, 4].map((index) =>
        shardPlan(plan(text), { index, count: 4 })
          .map((i) => i.key)
          .sort(),
      );
    expect(split(suiteText(30, 8, true))).toEqual(split(suiteText(30, 8)));
  });

  it('balances the expected turns (repeats and follow-ups counted) of each target and kind within one suite item', () => {
    const whole = plan(suiteText(61, 17), ['a', 'b']);
    for (const count of [2, 3, 5, 8]) {
      const load = new Map<string, number[]>();
      const heaviest = new Map<string, number>();
      const unitWeight = new Map<string, number>();
      for (const item of whole) {
        const unit = `${item.target}/${item.kind}/${item.suiteItemId}`;
        unitWeight.set(unit, (unitWeight.get(unit) ?? 0) + turns(item));
      }
      for (const [unit, w] of unitWeight) {
        const pool = unit.slice(0, unit.lastIndexOf('/'));
        heaviest.set(pool, Math.max(heaviest.get(pool) ?? 0, w));
      }
      for (let index = 1; index <= count; index++) {
        for (const item of shardPlan(whole, { index, count })) {
          const pool = `${item.target}/${item.kind}`;
          if (!load.has(pool)) load.set(pool, new Array<number>(count).fill(0));
          load.get(pool)![index - 1]! += turns(item);
        }
      }
      for (const [pool, loads] of load) {
        const spread = Math.max(...loads) - Math.min(...loads);
        expect(spread, `pool ${pool} over ${count} shards: ${loads.join(', ')}`).toBeLessThanOrEqual(heaviest.get(pool)!);
      }
      // Position-blind round robin would not do this well on a suite whose first items are the heavy ones.
      const total = whole.reduce((sum, i) => sum + turns(i), 0);
      const perShard = [...load.values()].reduce((acc, loads) => acc.map((v, i) => v + loads[i]!), new Array<number>(count).fill(0));
      expect(Math.max(...perShard)).toBeLessThanOrEqual(total / count + 2 * Math.max(...heaviest.values()));
    }
  });

  it('spreads one-item pools over the shards instead of stacking them on shard 1', () => {
    const whole = plan(suiteText(1, 0), ['a', 'b', 'c', 'd']);
    const sizes = [1, 2, 3, 4].map((index) => shardPlan(whole, { index, count: 4 }).length);
    expect(sizes).toEqual([1, 1, 1, 1]);
  });
});

describe('parseShard', () => {
  it('accepts INDEX/COUNT', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShard(' 1 / 1 ')).toEqual({ index: 1, count: 1 });
  });

  it.each([
    ['0/4', /between 1 and 4.*numbered from 1/],
    ['5/4', /between 1 and 4/],
    ['1/0', /count must be between 1 and 1000/],
    ['1/1001', /count must be between 1 and 1000/],
    ['2', /INDEX\/COUNT/],
    ['a/b', /INDEX\/COUNT/],
    ['-1/4', /INDEX\/COUNT/],
    ['1.5/4', /INDEX\/COUNT/],
  ])('refuses %s with a usage error', (text, message) => {
    expect(() => parseShard(text)).toThrow(UsageError);
    expect(() => parseShard(text)).toThrow(message);
  });
});

describe('runGroupId', () => {
  const base = { suiteHash: 'abc', targets: [{ name: 'prod', url: 'https://a.example', emulated: false }], label: 'nightly-42' };
  it('is the same for the same suite, targets and label, and differs when any differs', () => {
    expect(runGroupId(base)).toBe(runGroupId({ ...base }));
    expect(runGroupId({ ...base, suiteHash: 'abd' })).not.toBe(runGroupId(base));
    expect(runGroupId({ ...base, label: 'nightly-43' })).not.toBe(runGroupId(base));
    expect(runGroupId({ ...base, targets: [{ name: 'prod', url: 'https://b.example', emulated: false }] })).not.toBe(runGroupId(base));
  });
  it("ignores an emulated target's URL (a port of a process gone with its job)", () => {
    const emulated = (url: string) => ({ ...base, targets: [{ name: 'emulator', url, emulated: true }] });
    expect(runGroupId(emulated('http://127.0.0.1:4100'))).toBe(runGroupId(emulated('http://127.0.0.1:4200')));
  });
});
