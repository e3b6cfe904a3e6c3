import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/report/compare/compare.js';
import { DEFAULT_THRESHOLDS } from '../../src/report/compare/gates.js';
import type { TargetInfo } from '../../src/model/run.js';
import type { Store } from '../../src/store/store.js';
import { type ItemScript, completed, failed, question, recordRun, useTempStore } from './fixtures.js';

// What a small suite can show with the default gates (pass-rate and new-errors at 8 of 17 parts of 5%
// each, latency at 1): an error surge on every question is red, a gate that fails passes its level on,
// and a gate that cannot be red at the suite's size says so.

let dir: string;
let db: string;
let store: Store;
useTempStore((t) => ({ dir, db, store } = t));

const one: TargetInfo[] = [{ name: 'prod', url: 'https://prod.example.com', api: 'legacy', emulated: false }];

/** q0.. with a check; `erring` ids end in an error in this run, `failing` ones fail their check. */
function items(count: number, erring: ReadonlySet<number>, failing: ReadonlySet<number>): ItemScript[] {
  return Array.from({ length: count }, (_, i) => ({
    item: question(`q${i}`, 'prod'),
    turns: [erring.has(i) ? failed('TOKEN_LIMIT_EXCEEDED') : completed({ serverMs: 1000 + i })],
    expectations: [{ name: 'contains', passed: !failing.has(i) && !erring.has(i), reason: 'r' }],
  }));
}

async function compare(count: number, erring: number[], failing: number[] = []) {
  const b = recordRun(store, items(count, new Set(), new Set()), { targets: one });
  const c = recordRun(store, items(count, new Set(erring), new Set(failing)), { targets: one });
  const r = await compareRuns({ baseline: { db, run: String(b) }, candidate: { db, run: String(c) }, out: path.join(dir, `out-${c}`), thresholds: DEFAULT_THRESHOLDS });
  return { summary: r.summary, gate: (name: string) => r.summary.gates.find((g) => g.name === name)! };
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

describe('the default gates on a small suite', () => {
  it('is red when every one of 6 questions newly errs (p = 1/64; at 2 of 19 parts of 5% it could never be)', async () => {
    const { summary, gate } = await compare(6, range(0, 6));
    expect(gate('new-errors').p).toBeCloseTo(1 / 64, 10);
    expect(gate('new-errors')).toMatchObject({ enabled: true, failed: true });
    expect(summary.failed).toBe(true);
  });

  it('passes a failed gate its level on: errors on 5 questions (p = 1/32) are red beside a pass-rate drop, not alone', async () => {
    const alone = await compare(12, range(0, 5));
    expect(alone.gate('new-errors').failed).toBe(false);
    const beside = await compare(12, range(0, 5), range(5, 11));
    expect(beside.gate('pass-rate').failed).toBe(true);
    expect(beside.gate('new-errors').p).toBeCloseTo(1 / 32, 10);
    expect(beside.gate('new-errors').level!).toBeGreaterThan(alone.gate('new-errors').level!);
    expect(beside.gate('new-errors').failed).toBe(true);
  });

  it('says when a gate could not be red with the suite it has', async () => {
    const { gate } = await compare(4, range(0, 4));
    expect(gate('new-errors').failed).toBe(false);
    expect(gate('new-errors').detail).toContain('could not be red with 4 questions (the smallest p-value 4 questions can give is 0.063');
    expect(gate('new-errors').detail).not.toContain('could have detected');
  });
});
