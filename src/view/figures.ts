import type Database from 'better-sqlite3';
import { DEFAULT_BOOTSTRAP } from '../stats/bootstrap.js';
import { type RateEstimate, clusteredRate } from '../stats/cluster-rate.js';
import { checkedQuestions } from '../store/view-queries.js';
import { fmtPct } from './html.js';

// A run's pass rate per target as the report gives it (items whose checks all passed, over questions: a
// question with its repeats is one cluster; quarantined questions left out), from one grouped query.

export function passRates(db: Database.Database, runId: number): Array<{ target: string; rate: RateEstimate }> {
  const byTarget = new Map<string, { passed: number[]; checked: number[] }>();
  for (const q of checkedQuestions(db, runId)) {
    let t = byTarget.get(q.target);
    if (!t) byTarget.set(q.target, (t = { passed: [], checked: [] }));
    t.passed.push(q.passed);
    t.checked.push(q.checked);
  }
  return [...byTarget].map(([target, t]) => ({ target, rate: clusteredRate(t.passed, t.checked, DEFAULT_BOOTSTRAP) }));
}

/** `83.3% (70.1–92.0%)`, the interval's confidence and method said where it is shown. */
export function rateText(rate: RateEstimate): string {
  return rate.value === null ? '' : `${fmtPct(rate.value)} (${fmtPct(rate.low)}–${fmtPct(rate.high)})`;
}
