import { UsageError } from '../../errors/errors.js';
import type { PairedChange } from '../../stats/bootstrap.js';

// What fails a comparison (exit code 1). Two kinds of gate:
// - metric thresholds: a metric regressed when the lower bound of its confidence interval for the relative
//   median change is above the threshold (we are confident it got worse by more than the threshold);
//   improved when the upper bound is below minus the threshold; unchanged otherwise. With fewer pairs than
//   --min-pairs it is not judged. A threshold of `off` still judges (against 0) but never fails.
// - outcome gates, chosen with --fail-on: new-errors (the error rate rose), pass-rate and pass-k (dropped):
//   each a one-sided sign-flip test over questions that fails only when the change is beyond what noise
//   explains at the chosen confidence and larger than the allowed change (docs/statistics.md);
//   truncated-no-answer (the share of items stopped by the output limit before any answer text rose, the
//   same test, allowed rise --max-error-rate-rise: the instance's runbook reads it as a model change);
// - event gates, also chosen with --fail-on, that fail on any single event: any-new-error (what
//   new-errors meant before it became a test), verdict-changes, count-changes, search-verdicts, unpaired.

export const FAIL_ON = ['new-errors', 'pass-rate', 'pass-k', 'any-new-error', 'verdict-changes', 'count-changes', 'search-verdicts', 'unpaired', 'truncated-no-answer'] as const;
export type FailOn = (typeof FAIL_ON)[number];

export interface Thresholds {
  /** Fractions (0.2 = 20%); null: off (judged, never fails). */
  latency: number | null;
  credits: number | null;
  tokens: number | null;
  toolCalls: number | null;
  /** Largest allowed drop of the paired pass rate (and pass^k), as a fraction (0.05 = 5 percentage points). */
  passRateDrop: number;
  /** Largest allowed rise of the error rate, as a fraction. */
  errorRateRise: number;
  /** Fewest comparable pairs for a metric to be judged. */
  minPairs: number;
  failOn: ReadonlySet<FailOn>;
}

export const DEFAULT_THRESHOLDS: Thresholds = {
  latency: 0.2,
  credits: 0.1,
  tokens: null,
  toolCalls: null,
  passRateDrop: 0,
  errorRateRise: 0,
  minPairs: 5,
  failOn: new Set<FailOn>(['new-errors', 'pass-rate']),
};

/** `20%`, `20` (percent) or `off`; a fraction, or null for off. */
export function parsePercent(text: string | number, flag: string): number | null {
  const s = String(text).trim().toLowerCase();
  if (s === 'off' || s === 'none') return null;
  const m = /^(\d+(?:\.\d+)?)\s*%?$/.exec(s);
  if (!m) throw new UsageError(`${flag} takes a percentage such as 20% (or off), got ${JSON.stringify(String(text))}`);
  return Number(m[1]) / 100;
}

export function parseFailOn(text: string): Set<FailOn> {
  const parts = text
    .split(',')
    .map((p) => p.trim().toLowerCase())
    .filter(Boolean);
  if (parts.length === 1 && parts[0] === 'none') return new Set();
  for (const p of parts) {
    if (!(FAIL_ON as readonly string[]).includes(p)) throw new UsageError(`--fail-on: ${p} is not one of ${FAIL_ON.join(', ')} (or none)`);
  }
  return new Set(parts as FailOn[]);
}

export type Judgement = 'regressed' | 'improved' | 'unchanged' | 'too few pairs';

/**
 * Judges a paired change where higher is worse. Uses the relative interval when the baseline median is not
 * 0, else the absolute one (against 0).
 */
export function judge(change: PairedChange, threshold: number | null, minPairs: number): Judgement {
  if (change.n === 0 || change.n < minPairs) return 'too few pairs';
  const t = threshold ?? 0;
  if (change.relativeLow !== null && change.relativeHigh !== null) {
    if (change.relativeLow > t) return 'regressed';
    if (change.relativeHigh < -t) return 'improved';
    return 'unchanged';
  }
  if (change.deltaLow !== null && change.deltaLow > 0) return 'regressed';
  if (change.deltaHigh !== null && change.deltaHigh < 0) return 'improved';
  return 'unchanged';
}

export interface GateResult {
  name: string;
  /** Whether this gate can fail the comparison (chosen by --fail-on, or a threshold not off). */
  enabled: boolean;
  failed: boolean;
  detail: string;
}
