import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/report/compare/compare.js';
import { confirmLevels, firstLookOf, flaggedGates, gatesAtLevel, statisticalGates } from '../../src/report/compare/confirm-decision.js';
import { ConfirmTally } from '../../src/report/compare/confirm-tally.js';
import { DEFAULT_THRESHOLDS } from '../../src/report/compare/gates.js';
import type { CompareRow } from '../../src/report/compare/pairs.js';
import type { TargetInfo } from '../../src/model/run.js';
import { DEFAULT_BOOTSTRAP } from '../../src/stats/bootstrap.js';
import type { Store } from '../../src/store/store.js';
import { type ItemScript, checkedNight, recordRun, useTempStore } from './fixtures.js';

// The decision of `dsbench confirm` before anything is re-asked (docs/statistics.md, "A second look"): the
// first look's strict level, and what the tests there count.

let dir: string;
let db: string;
let store: Store;
useTempStore((t) => ({ dir, db, store } = t));

const one: TargetInfo[] = [{ name: 'prod', url: 'https://prod.example.com', api: 'legacy', emulated: false }];


async function firstLook(baseline: ItemScript[], candidate: ItemScript[]) {
  const b = recordRun(store, baseline, { targets: one });
  const c = recordRun(store, candidate, { targets: one });
  const rows: CompareRow[] = [];
  const tally = new ConfirmTally();
  const r = await compareRuns({
    baseline: { db, run: String(b) },
    candidate: { db, run: String(c) },
    out: path.join(dir, `out-${c}`),
    thresholds: DEFAULT_THRESHOLDS,
    onRow: (row) => {
      rows.push(row);
      tally.addCompared(row);
    },
  });
  const flagged = flaggedGates(r.summary);
  const levels = confirmLevels(0.01, candidate.length, Math.ceil(candidate.length / 10), r.summary);
  const looks = firstLookOf(flagged, tally, rows, levels, DEFAULT_THRESHOLDS, DEFAULT_BOOTSTRAP);
  return { summary: r.summary, rows, tally, flagged, levels, looks, crossed: looks.filter((l) => l.crossed).map((l) => l.gate) };
}

describe("confirm's first look", () => {
  it('is red on five of 12 questions that went from no error to errors on both repeats, which the sign flip over questions cannot reach', async () => {
    const erring = new Set([0, 1, 2, 3, 4]);
    const { summary, rows, flagged, levels, looks, crossed } = await firstLook(checkedNight(12, 2), checkedNight(12, 2, erring));
    // The plain gate: p = 1/32 over questions, near its level (suspect), so the confirmation takes its first look.
    expect(summary.gates.find((g) => g.name === 'new-errors')!.p).toBeCloseTo(1 / 32, 10);
    expect(flagged.map((g) => g.name)).toContain('new-errors');
    // At the first look's share of alpha (about 0.3%) the sign flip's 1/32 is far off; the exact conditional
    // test stratified by question gives (1/6)^5 = 0.00013 (each question's 2 errors among its 4 items, both
    // on the candidate's side), and the surge is red without asking anything more.
    const level = levels.first * (levels.shares['new-errors'] ?? 0);
    expect(level).toBeLessThan(0.005);
    expect(gatesAtLevel(rows, DEFAULT_THRESHOLDS, DEFAULT_BOOTSTRAP, levels.first).gates.find((g) => g.name === 'new-errors')!.failed).toBe(false);
    expect(crossed).toContain('new-errors');
    const look = looks.find((l) => l.gate === 'new-errors')!;
    expect(look.p).toBeCloseTo((1 / 6) ** 5, 8);
    expect(look.how).toContain('one-sided exact conditional p = 0.00013');
  });

  it('counts every repeat of a baseline asked more often than the night, not only the paired ones', async () => {
    const { tally, crossed } = await firstLook(checkedNight(12, 6), checkedNight(12, 2, new Set([0, 1, 2, 3, 4])));
    const counts = tally.counts('new-errors');
    expect(counts.every((c) => c.baselineTrials === 6 && c.candidateTrials === 2)).toBe(true);
    expect(counts.filter((c) => c.candidateSuccesses === 2)).toHaveLength(5);
    // Each erring question alone: 2 errors among 8 items, both on the night's side, 1/28: (1/28)^5.
    expect(crossed).toContain('new-errors');
  });

  it('is not red where nothing changed', async () => {
    const { flagged, crossed } = await firstLook(checkedNight(12, 2, new Set([3])), checkedNight(12, 2, new Set([3])));
    expect(flagged).toEqual([]);
    expect(crossed).toEqual([]);
  });

  it('a gate with too few pairs says it was not judged, not a level of 0.0', async () => {
    // 2 questions x 2 repeats: 4 latency pairs, fewer than --min-pairs 5; every statistical gate looked at, as confirm does.
    const { summary, rows, tally } = await firstLook(checkedNight(2, 2), checkedNight(2, 2));
    const gates = statisticalGates(summary);
    expect(gates.map((g) => g.name)).toContain('latency regression');
    const looks = firstLookOf(gates, tally, rows, confirmLevels(0.01, 4, 1, summary), DEFAULT_THRESHOLDS, DEFAULT_BOOTSTRAP);
    expect(looks.find((l) => l.gate === 'latency regression')).toMatchObject({ crossed: false, notJudged: 'not judged: too few pairs', how: '4 comparable pairs, fewer than 5' });
    for (const l of looks) expect(l.how).not.toMatch(/one-sided 0\.0\b/);
  });
});
