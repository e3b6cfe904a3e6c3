import { UsageError } from '../../errors/errors.js';
import { ExitCode } from '../../errors/exit-codes.js';
import type { PairedChange } from '../../stats/bootstrap.js';

// What fails a comparison (exit code 1). Two kinds of gate:
// - metric thresholds: a metric regressed when the lower bound of its interval for the change of its median
//   is above the threshold (we are confident it got worse by more than the threshold) and its lower bound at
//   the gate's share of the false-alarm rate is above 0 (so that on nights where nothing changed it keeps to
//   that share); improved when the upper bound is below minus the threshold; unchanged otherwise. With
//   fewer pairs than --min-pairs it is not judged. A threshold of `off` still judges (against 0) but never fails.
// - outcome gates, chosen with --fail-on: new-errors (the error rate rose), pass-rate and pass-k (dropped):
//   each a one-sided test over questions that fails only when the change is beyond what noise explains and
//   beyond the allowed change (docs/statistics.md); truncated-no-answer (the share of items stopped by the
//   output limit before any answer text rose, the same test, allowed rise --max-error-rate-rise: the
//   instance's runbook reads it as a model change);
// The tests that can fail a comparison share one false-alarm rate, 1 - confidence (gateLevels).
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
  if (change.relativeLow !== null && change.relativeHigh !== null && change.relativeGateLow !== null) {
    if (change.relativeLow > t && change.relativeGateLow > 0) return 'regressed';
    if (change.relativeHigh < -t) return 'improved';
    return 'unchanged';
  }
  if (change.deltaGateLow !== null && change.deltaGateLow > 0) return 'regressed';
  if (change.deltaHigh !== null && change.deltaHigh < 0) return 'improved';
  return 'unchanged';
}

export interface GateResult {
  name: string;
  /** Whether this gate can fail the comparison (chosen by --fail-on, or a threshold not off). */
  enabled: boolean;
  failed: boolean;
  /** A test gate that did not fail but came near: its p-value below twice its level, the change beyond its allowance. */
  near?: boolean | undefined;
  detail: string;
  /** Why the gate had nothing to judge, as every output shows it in place of its result ("not judged: too few pairs", "not measured"); absent when it judged. */
  notJudged?: string;
  /** For a test: its one-sided level (its share of the false-alarm rate) and p-value; passed with p below twice its level is near the limit. */
  level?: number;
  p?: number | null;
}

/** The outcome gates that are statistical tests (the others fail on any single event). */
export const TEST_GATES = ['pass-rate', 'pass-k', 'new-errors', 'truncated-no-answer'] as const;

/**
 * Weights of the split of the false-alarm rate over the enabled tests, fixed before any data from what each
 * gate is for: the two default outcome gates (pass-rate, new-errors) are the verdict's primary questions
 * and weigh alike (an error surge is as much a regression as a drop of the pass rate; at 2 of 19 the error
 * test, discrete and over questions, caught a surge from 4% to 30% errors at 30 x 2 only 80% of nights);
 * pass-k half as much (it restates the pass rate, errors included), truncated-no-answer a quarter (a
 * narrower question), and each judged metric 1: its threshold is judged on its interval; its share only
 * bounds "worse at all".
 */
const WEIGHTS = { 'pass-rate': 8, 'pass-k': 4, 'new-errors': 8, 'truncated-no-answer': 2, metric: 1 } as const;

/**
 * Each test gate's one-sided level before any gate has failed: the family's rate 1 - confidence split by
 * weight over the tests that can fail the comparison (weighted Bonferroni, Holm 1979). `judgedMetrics`:
 * metric gates with a threshold and enough pairs to be judged (known before any test is run). A test that
 * cannot fail the comparison gets the level it would have if it could. `passOn` then hands a failed gate's
 * level on to the others.
 */
export function gateLevels(t: Thresholds, confidence: number, judgedMetrics: readonly string[]): Map<string, number> {
  const alpha = 1 - confidence;
  const weights = new Map<string, number>();
  for (const g of TEST_GATES) if (t.failOn.has(g)) weights.set(g, WEIGHTS[g]);
  for (const m of judgedMetrics) weights.set(`${m} regression`, WEIGHTS.metric);
  const total = [...weights.values()].reduce((a, w) => a + w, 0);
  const levels = new Map<string, number>();
  for (const g of TEST_GATES) levels.set(g, (alpha * WEIGHTS[g]) / (total + (weights.has(g) ? 0 : WEIGHTS[g])));
  for (const m of judgedMetrics) levels.set(`${m} regression`, (alpha * WEIGHTS.metric) / total);
  return levels;
}

/**
 * Weighted Holm (Holm 1979), the graphical procedure of Bretz et al. (2009) whose edges pass a failed
 * gate's level to the others in proportion to their weights: once the gates in R have failed, every other
 * enabled gate is judged at base x alpha / (alpha - sum of R's base levels), alpha the sum of the enabled
 * gates' base levels; repeated until no more fail. It fails every gate the split fails and keeps the
 * family's rate (a closed test). `fails(gate, level)`: whether the gate fails at that level. Returns
 * the level each enabled gate was last judged at (a gate that failed: the level it failed at).
 */
export function passOn(base: ReadonlyMap<string, number>, enabled: readonly string[], fails: (gate: string, level: number) => boolean): Map<string, number> {
  const alpha = enabled.reduce((a, g) => a + (base.get(g) ?? 0), 0);
  const levels = new Map<string, number>();
  const failed = new Set<string>();
  for (;;) {
    const spent = [...failed].reduce((a, g) => a + base.get(g)!, 0);
    const factor = alpha - spent > 1e-15 ? alpha / (alpha - spent) : 1;
    const newly: string[] = [];
    for (const g of enabled) {
      if (failed.has(g) || !base.has(g)) continue;
      const level = base.get(g)! * factor;
      levels.set(g, level);
      if (fails(g, level)) newly.push(g);
    }
    if (newly.length === 0) return levels;
    for (const g of newly) failed.add(g);
  }
}

/**
 * The verdict of a comparison, in tiers:
 * - regressed: a gate failed (with a confirmation: at one of its two looks, at the levels alpha spending gives);
 * - suspect: a change the second look's budget could not settle (a flagged gate that crossed at neither look
 *   but still fails at the plain level on all the data), or, without a confirmation, a gate near its limit;
 * - undecided: too little to judge (no pair, or fewer than --min-pairs for a gated metric);
 * - unchanged: none of these.
 */
export const VERDICTS = ['regressed', 'suspect', 'unchanged', 'undecided'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Exit codes of the tiers (docs/exit-codes.md). */
export const VERDICT_EXIT_CODE: Record<Verdict, number> = { regressed: ExitCode.expectationsFailed, suspect: ExitCode.suspect, unchanged: ExitCode.ok, undecided: ExitCode.nothingCompared };

/** The second look of a confirmation (`dsbench confirm`), by gate name. */
export interface SecondLook {
  /** Gates that crossed at the first look's spent level: regressed without asking more. */
  firstLookRegressed: string[];
  /** Gates that crossed at the second look's level. */
  secondLookRegressed: string[];
  /** Gates flagged at the first look that crossed at neither look and still fail at the plain level on all the data. */
  unsettled: string[];
}

/** The one verdict of a comparison: its gates (and starved gates) at the first look, and the second look when there was one. */
export function verdictOf(first: { gates: readonly GateResult[]; starved: readonly string[] }, second?: SecondLook): Verdict {
  if (second) {
    if (second.firstLookRegressed.length > 0 || second.secondLookRegressed.length > 0) return 'regressed';
    if (second.unsettled.length > 0) return 'suspect';
    return first.starved.length > 0 ? 'undecided' : 'unchanged';
  }
  if (first.gates.some((g) => g.enabled && g.failed)) return 'regressed';
  if (first.starved.length > 0) return 'undecided';
  if (first.gates.some((g) => g.enabled && g.near)) return 'suspect';
  return 'unchanged';
}

/**
 * How a red or suspect verdict points to a second look: `confirm`, the `dsbench confirm` command; `rerun`,
 * running again with --confirm (the run asked the embedded emulator, gone with the run, and confirm re-asks
 * the run's own instance); `none`, no pointer (the comparison is the first look of a confirmation).
 */
export type SecondLookHint = 'confirm' | 'rerun' | 'none';

/** One line for every output: the tier, why, and what to do next. */
export function verdictLine(verdict: Verdict, first: { gates: readonly GateResult[] }, second?: SecondLook, runs?: { baseline: number; candidate: number }, hint: SecondLookHint = 'confirm'): string {
  const command = `dsbench confirm ${runs?.candidate ?? '<candidate run>'} --baseline ${runs?.baseline ?? '<baseline run>'}`;
  const rerun = "run again with --confirm (dsbench confirm re-asks the run's own instance, and its embedded emulator ended with it)";
  const next = (lead: string): string => (hint === 'none' ? '' : `. ${lead}${hint === 'rerun' ? ` ${rerun}` : `: ${command}`}`);
  const failed = first.gates.filter((g) => g.enabled && g.failed).map((g) => g.name);
  const near = first.gates.filter((g) => g.enabled && g.near).map((g) => g.name);
  const names = (xs: readonly string[]): string => xs.join(', ');
  switch (verdict) {
    case 'regressed':
      return second
        ? `Verdict: REGRESSED (confirmed: ${names([...second.firstLookRegressed.map((g) => `${g} at the first look`), ...second.secondLookRegressed.map((g) => `${g} at the second look`)])}); exit ${VERDICT_EXIT_CODE.regressed}`
        : `Verdict: REGRESSED (${names(failed)}); exit ${VERDICT_EXIT_CODE.regressed}${next(hint === 'rerun' ? 'Before acting on one night,' : 'Before acting on one night')}`;
    case 'suspect':
      return second
        ? `Verdict: SUSPECT (${names(second.unsettled)}: a change the confirmation's budget could not settle); exit ${VERDICT_EXIT_CODE.suspect}. Confirm again with a larger --confirm-budget, or watch the next nights`
        : `Verdict: SUSPECT (${names(near)} near its limit); exit ${VERDICT_EXIT_CODE.suspect}${next(hint === 'rerun' ? 'To settle it,' : 'Settle it with')}`;
    case 'undecided':
      return `Verdict: UNDECIDED (too little data to judge); exit ${VERDICT_EXIT_CODE.undecided}`;
    case 'unchanged':
      return `Verdict: unchanged; exit ${VERDICT_EXIT_CODE.unchanged}`;
  }
}
