import type { BootstrapOptions } from '../../stats/bootstrap.js';
import { conditionalRateTest, informationFraction, type TwoLookLevels, twoLookLevels } from '../../stats/sequential.js';
import { gateAlpha, type CompareSummary, CompareAccumulator } from './aggregate.js';
import { type ConfirmTally, RATE_GATES, type RateGate } from './confirm-tally.js';
import type { GateResult, SecondLook, Thresholds } from './gates.js';
import type { CompareRow } from './pairs.js';
import { plural } from '../tables.js';

// The decision of a confirmation, apart from the asking: the levels of the two looks, every statistical
// gate at the first look, which gates call for the second, and their results there (docs/statistics.md,
// "A second look").

/** The statistical gates that can fail: the rate tests that are on, and the gated metrics that measured something. */
export function statisticalGates(s: CompareSummary): GateResult[] {
  const measured = new Set(s.metrics.filter((m) => m.gated && m.measured > 0).map((m) => `${m.metric} regression`));
  return s.gates.filter((g) => g.enabled && (measured.has(g.name) || (RATE_GATES as readonly string[]).includes(g.name)));
}

/** Gates the plain comparison flags: failed, or near the limit. Event gates (any-new-error, ...) are not statistical and are left as they are. */
export function flaggedGates(s: CompareSummary): GateResult[] {
  return statisticalGates(s).filter((g) => g.failed || g.near);
}

/**
 * Gates that call for the second look: those the plain comparison flags, and the rate gates whose first
 * look (every statistical gate's, firstLookOf) came near (`calls`). The rule may read anything of the
 * first look's data: the second look's level is spent whether or not it is taken, so skipping it only
 * gives up power (a non-binding futility rule).
 */
export function secondLookGates(s: CompareSummary, firstLooks: readonly GateLook[]): GateResult[] {
  const calls = new Set(firstLooks.filter((l) => l.calls).map((l) => l.gate));
  return statisticalGates(s).filter((g) => g.failed || g.near || calls.has(g.name));
}

export interface ConfirmLevels extends TwoLookLevels {
  /** Statistical gates sharing alpha (weighted Bonferroni): each look's level split by the comparison's weights (gateLevels). */
  gates: number;
  /** Each gate's share of a look's level: its level in the comparison over the sum of the statistical gates' levels. */
  shares: Record<string, number>;
}

export function confirmLevels(alpha: number, asked: number, budget: number, first: CompareSummary): ConfirmLevels {
  const gates = statisticalGates(first).map((g) => g.name);
  const total = gates.reduce((a, g) => a + (first.levels[g] ?? 0), 0);
  const shares = Object.fromEntries(gates.map((g) => [g, total > 0 ? (first.levels[g] ?? 0) / total : 1 / gates.length]));
  return { ...twoLookLevels(alpha, informationFraction(asked, budget)), gates: Math.max(1, gates.length), shares };
}

/** A gate's share of a look's level (1 when the gate was not among the statistical gates). */
export const shareOf = (levels: ConfirmLevels, gate: string): number => levels.shares[gate] ?? 1 / levels.gates;

/** The comparison's gates again on the same rows at a stricter level (the spent alpha of one gate). */
export function gatesAtLevel(rows: readonly CompareRow[], thresholds: Thresholds, bootstrap: BootstrapOptions, level: number): CompareSummary {
  const acc = new CompareAccumulator(1);
  for (const row of rows) acc.add(row);
  // A rate gate's level is 1 - confidence; a metric's interval is two-sided, so its one-sided level is half that.
  return acc.finish(thresholds, { ...bootstrap, confidence: 1 - level });
}

export interface GateLook {
  gate: string;
  /** The p-value, or for a metric whether its interval cleared the threshold at the level. */
  p: number | null;
  level: number;
  crossed: boolean;
  /** Still failing at the plain level on all the data. */
  flaggedStill: boolean;
  /** At the first look: near enough to call for the second (a rate gate's p below twice its plain level, the change beyond its allowance). */
  calls: boolean;
  /** How the look judged it. */
  how: string;
  /** Why the gate had nothing to judge (its words in the comparison's gates table); absent when it judged. */
  notJudged?: string;
}

/** A rate gate's exact conditional test stratified by question on the tally's items at `level`; `near`: the p below which it calls for a second look. */
function rateLook(gate: RateGate, tally: ConfirmTally, level: number, thresholds: Thresholds, plain: number, near = 0): GateLook {
  const test = conditionalRateTest(tally.counts(gate));
  const rise = gate === 'new-errors';
  if (test.change === null) return { gate, p: null, level, crossed: false, flaggedStill: false, calls: false, how: `no question ${rise ? 'ended' : 'checked'} on both sides`, notJudged: 'not judged' };
  const p = rise ? test.pUpper : test.pLower;
  const allowed = rise ? thresholds.errorRateRise : thresholds.passRateDrop;
  const beyond = test.change !== null && (rise ? test.change : -test.change) > allowed + 1e-12;
  return {
    gate,
    p,
    level,
    crossed: beyond && p < level,
    flaggedStill: beyond && p < plain,
    calls: beyond && p < near,
    how: `${test.informative} of ${plural(test.questions, 'question')} differ, mean change ${test.change === null ? '–' : `${(test.change * 100).toFixed(1)} points`}; one-sided exact conditional p = ${p.toPrecision(2)} against ${level.toPrecision(2)}`,
  };
}

const isRateGate = (name: string): name is RateGate => (RATE_GATES as readonly string[]).includes(name);

/**
 * The first look's strict decision, before anything is re-asked, on every statistical gate (`gates`, all
 * of statisticalGates: the split of α over them already counts each as tested): a rate gate by its exact
 * conditional test stratified by question on the night's items at its share of the first level (the test
 * of the second look, so that both looks count every item: the sign flip over questions of the plain
 * gates needs 1/32 from five questions that went from no error to two, where this test gives (1/6)^5, and
 * pairs repeat with repeat, leaving out a baseline's extra repeats); a metric gate by the plain gates at
 * the first level. Those that crossed are red. A rate gate that did not, with its p below twice its plain
 * level (as `near` reads the plain test), calls for the second look.
 */
export function firstLookOf(gates: readonly GateResult[], tally: ConfirmTally, rows: readonly CompareRow[], levels: ConfirmLevels, thresholds: Thresholds, bootstrap: BootstrapOptions): GateLook[] {
  const plain = gateAlpha(bootstrap.confidence);
  const metrics = gates.some((g) => !isRateGate(g.name)) ? gatesAtLevel(rows, thresholds, bootstrap, levels.first) : undefined;
  return gates.map((g): GateLook => {
    if (isRateGate(g.name)) return rateLook(g.name, tally, levels.first * shareOf(levels, g.name), thresholds, plain, 2 * (g.level ?? plain * shareOf(levels, g.name)));
    const m = metrics!.gates.find((x) => x.name === g.name);
    const level = m?.level ?? levels.first * shareOf(levels, g.name);
    // No data, no level: a gate with too few pairs has no share of alpha, and its look says why, not "at 0.0".
    if (m?.notJudged !== undefined) return { gate: g.name, p: null, level, crossed: false, flaggedStill: false, calls: false, how: m.detail.replace(/: not judged$/, ''), notJudged: m.notJudged };
    return { gate: g.name, p: null, level, crossed: m?.failed === true, flaggedStill: g.failed, calls: false, how: `its interval's bound above 0 at one-sided ${level.toPrecision(2)}: ${m?.detail ?? '–'}` };
  });
}

/**
 * The second look at the gates that call for it (secondLookGates): a rate gate by its exact conditional
 * test stratified by question on all the data (the run's repeats and the re-asked ones, which it counts
 * item by item: a sign flip over questions gains nothing from re-asking a question already at 0) at its
 * share of the second level; a flagged metric gate,
 * whose questions are not re-asked, on the first look's data at the whole alpha split by weight (the same
 * data at both looks: one test).
 */
export function secondLookOf(
  flagged: readonly GateResult[],
  tally: ConfirmTally,
  rows: readonly CompareRow[],
  levels: ConfirmLevels,
  thresholds: Thresholds,
  bootstrap: BootstrapOptions,
): GateLook[] {
  const plain = gateAlpha(bootstrap.confidence);
  const looks: GateLook[] = [];
  const metricSummary = flagged.some((g) => !isRateGate(g.name)) ? gatesAtLevel(rows, thresholds, bootstrap, levels.alpha) : undefined;
  for (const g of flagged) {
    if (isRateGate(g.name)) {
      looks.push(rateLook(g.name, tally, levels.second * shareOf(levels, g.name), thresholds, plain));
    } else {
      const m = metricSummary!.gates.find((x) => x.name === g.name);
      const level = m?.level ?? levels.alpha * shareOf(levels, g.name);
      looks.push({ gate: g.name, p: null, level, crossed: m?.failed === true, flaggedStill: g.failed, calls: false, how: `not re-asked; first look's interval, its bound above 0 at one-sided ${level.toPrecision(2)}: ${m?.detail ?? '–'}` });
    }
  }
  return looks;
}

/** The second look as the verdict function reads it. */
export function secondLookSummary(firstLookRegressed: readonly string[], looks: readonly GateLook[]): SecondLook {
  return {
    firstLookRegressed: [...firstLookRegressed],
    secondLookRegressed: looks.filter((l) => l.crossed).map((l) => l.gate),
    unsettled: looks.filter((l) => !l.crossed && l.flaggedStill).map((l) => l.gate),
  };
}
