import { NumberColumn, mean, sortedMedian } from '../../stats/percentiles.js';
import { type BootstrapOptions, type PairedChange, detectableIncrease, pairedMedianChange } from '../../stats/bootstrap.js';
import { type FailOn, type GateResult, type Judgement, type Thresholds, TEST_GATES, gateLevels, judge, passOn } from './gates.js';
import { type OutcomeSummary, OutcomeTally } from './outcomes.js';
import { ClockTally, type LatencyClocks } from './latency-clocks.js';
import type { CompareRow } from './pairs.js';
import { detectableRateDrop, type RateChange, worseThanAllowed } from '../../stats/cluster-rate.js';
import { plural } from '../tables.js';

// Everything compare.md and compare.json say, gathered while compare.csv streams: numbers per metric
// (8 bytes a pair and side), counts, and short lists (capped) of the rows people need to look at.

export const METRICS = ['latency', 'tokens', 'credits', 'tool_calls', 'search_latency'] as const;
export type MetricName = (typeof METRICS)[number];

export interface MetricResult extends PairedChange {
  metric: MetricName;
  unit: string;
  threshold: number | null;
  judgement: Judgement;
  /** The metric can fail the comparison (its threshold is not off). */
  gated: boolean;
  /** Comparable pairs with the metric on at least one side: 0 when neither run reports it (credits on the versioned API). */
  measured: number;
  /** The smallest relative increase this comparison would call regressed 80% of the time; null when not judged, not measured or not gated (nothing it could detect would fail the comparison). */
  detectable: number | null;
  /** Latencies only: how many pairs each clock timed; null for the other metrics. */
  clock: LatencyClocks | null;
}

export interface Listed {
  rows: CompareRow[];
  /** All of them, listed or not. */
  count: number;
}

export interface CompareSummary {
  questions: { paired: number; baselineOnly: number; candidateOnly: number };
  searches: { paired: number; baselineOnly: number; candidateOnly: number };
  stateChanges: Record<'same' | 'new_error' | 'fixed' | 'changed' | 'in_progress', number>;
  metrics: MetricResult[];
  /** Items with checks on both sides, errors included (descriptive; the gates judge `outcomes`). */
  passRate: { items: number; baselinePassed: number; candidatePassed: number; baseline: number | null; candidate: number | null; change: number | null };
  /** Rates and scores compared with tests that resample questions (docs/statistics.md). */
  outcomes: OutcomeSummary;
  answerSimilarity: { n: number; median: number | null; mean: number | null };
  sourcesJaccard: { n: number; median: number | null; mean: number | null };
  newErrors: Listed;
  fixedErrors: Listed;
  otherStateChanges: Listed;
  newFailures: Listed;
  fixedFailures: Listed;
  countChanges: Listed;
  searchVerdictChanges: Listed;
  unpaired: Listed;
  /** Items edited under the same id (one row each: the first turn, or the search); judged by no gate unless included. */
  edited: Listed & { inGates: boolean };
  gates: GateResult[];
  /** One-sided level of each test gate: shares of the one false-alarm rate, 1 - confidence. */
  levels: Record<string, number>;
  failed: boolean;
  /** Why a gate had too little to judge (no pairs at all, or a gated metric with fewer than --min-pairs); empty when every gate could judge. */
  starved: string[];
}

const UNITS: Record<MetricName, string> = { latency: 'ms', tokens: 'tokens', credits: 'credits', tool_calls: 'calls', search_latency: 'ms' };

class Capped {
  rows: CompareRow[] = [];
  count = 0;
  constructor(private readonly max: number) {}
  add(row: CompareRow): void {
    this.count++;
    if (this.rows.length < this.max) this.rows.push(row);
  }
  get listed(): Listed {
    return { rows: this.rows, count: this.count };
  }
}

export class CompareAccumulator {
  private readonly pairs = new Map<MetricName, MetricPairs>(METRICS.map((m) => [m, { b: new NumberColumn(), c: new NumberColumn(), measured: 0, starts: new NumberColumn(), lastCluster: '' }]));
  private readonly clocks = new ClockTally();
  private readonly outcomes = new OutcomeTally();
  private readonly questions = { paired: 0, baselineOnly: 0, candidateOnly: 0 };
  private readonly searches = { paired: 0, baselineOnly: 0, candidateOnly: 0 };
  private readonly stateChanges = { same: 0, new_error: 0, fixed: 0, changed: 0, in_progress: 0 };
  private readonly pass = { items: 0, baselinePassed: 0, candidatePassed: 0 };
  private readonly similarity = new NumberColumn();
  private readonly jaccard = new NumberColumn();
  private readonly newErrors: Capped;
  private readonly fixedErrors: Capped;
  private readonly otherStateChanges: Capped;
  private readonly newFailures: Capped;
  private readonly fixedFailures: Capped;
  private readonly countChanges: Capped;
  private readonly searchVerdictChanges: Capped;
  private readonly unpaired: Capped;
  private readonly edited: Capped;

  /** `includeEdited`: edited items count in the gates as any other (by default they are listed, never judged). */
  constructor(
    maxListed = 50,
    private readonly includeEdited = false,
  ) {
    const c = (): Capped => new Capped(maxListed);
    this.newErrors = c();
    this.fixedErrors = c();
    this.otherStateChanges = c();
    this.newFailures = c();
    this.fixedFailures = c();
    this.countChanges = c();
    this.searchVerdictChanges = c();
    this.unpaired = c();
    this.edited = c();
  }

  add(row: CompareRow): void {
    if (row.edited) {
      if (row.turn === null || row.turn === 0) this.edited.add(row);
      if (!this.includeEdited) return;
    }
    this.outcomes.add(row);
    const counts = row.kind === 'question' ? this.questions : this.searches;
    if (row.pairing !== 'paired') {
      if (row.pairing === 'baseline_only') counts.baselineOnly++;
      else counts.candidateOnly++;
      this.unpaired.add(row);
      return;
    }
    counts.paired++;
    const change = row.stateChange ?? 'same';
    this.stateChanges[change]++;
    if (change === 'new_error') this.newErrors.add(row);
    else if (change === 'fixed') this.fixedErrors.add(row);
    else if (change === 'changed') this.otherStateChanges.add(row);
    if (row.kind === 'search' && (change === 'new_error' || change === 'fixed' || change === 'changed')) this.searchVerdictChanges.add(row);

    if (row.itemExpectBaseline !== null && row.itemExpectCandidate !== null && row.itemExpectBaseline !== 'none' && row.itemExpectCandidate !== 'none') {
      this.pass.items++;
      if (row.itemExpectBaseline === 'pass') this.pass.baselinePassed++;
      if (row.itemExpectCandidate === 'pass') this.pass.candidatePassed++;
      if (row.itemExpectBaseline === 'pass' && row.itemExpectCandidate === 'fail') this.newFailures.add(row);
      if (row.itemExpectBaseline === 'fail' && row.itemExpectCandidate === 'pass') this.fixedFailures.add(row);
    }
    if (row.kind === 'search' && row.countBaseline !== null && row.countCandidate !== null && row.countBaseline !== row.countCandidate) this.countChanges.add(row);

    if (!row.comparable || row.quarantined) return;
    const cluster = `${row.targetBaseline ?? ''}\u0000${row.itemId}`;
    this.clocks.add(row);
    if (row.kind === 'question') {
      this.addPair('latency', cluster, row.latencyBaseline, row.latencyCandidate);
      this.addPair('tokens', cluster, row.tokensBaseline, row.tokensCandidate);
      this.addPair('credits', cluster, row.creditsBaseline, row.creditsCandidate);
      this.addPair('tool_calls', cluster, row.toolCallsBaseline, row.toolCallsCandidate);
      if (row.answerSimilarity !== null) this.similarity.push(row.answerSimilarity);
      if (row.sourcesJaccard !== null) this.jaccard.push(row.sourcesJaccard);
    } else {
      this.addPair('search_latency', cluster, row.latencyBaseline, row.latencyCandidate);
    }
  }

  finish(thresholds: Thresholds, bootstrap: BootstrapOptions): CompareSummary {
    const thresholdOf: Record<MetricName, number | null> = {
      latency: thresholds.latency,
      tokens: thresholds.tokens,
      credits: thresholds.credits,
      tool_calls: thresholds.toolCalls,
      search_latency: thresholds.latency,
    };
    const judged = METRICS.filter((m) => thresholdOf[m] !== null && this.pairs.get(m)!.b.length >= Math.max(1, thresholds.minPairs));
    const levels = gateLevels(thresholds, bootstrap.confidence, judged);
    const metrics = METRICS.map((metric): MetricResult => {
      const { b, c, measured, starts } = this.pairs.get(metric)!;
      const level = levels.get(`${metric} regression`) ?? (1 - bootstrap.confidence) / 2;
      const change = pairedMedianChange(b.values(), c.values(), bootstrap, starts.values(), level);
      const threshold = thresholdOf[metric];
      const judgement = judge(change, threshold, thresholds.minPairs);
      const detectable = judgement === 'too few pairs' || threshold === null || measured === 0 ? null : detectableIncrease(change, threshold, level, bootstrap.confidence);
      return { metric, unit: UNITS[metric], ...change, threshold, judgement, gated: threshold !== null, measured, detectable, clock: this.clocks.of(metric) };
    });
    const outcomes = this.outcomes.finish(bootstrap);
    const rate = (n: number): number | null => (this.pass.items === 0 ? null : n / this.pass.items);
    const baselineRate = rate(this.pass.baselinePassed);
    const candidateRate = rate(this.pass.candidatePassed);
    const summary: Omit<CompareSummary, 'gates' | 'failed' | 'starved' | 'levels'> = {
      questions: { ...this.questions },
      searches: { ...this.searches },
      stateChanges: { ...this.stateChanges },
      metrics,
      passRate: {
        ...this.pass,
        baseline: baselineRate,
        candidate: candidateRate,
        change: baselineRate === null || candidateRate === null ? null : candidateRate - baselineRate,
      },
      outcomes,
      answerSimilarity: describe(this.similarity),
      sourcesJaccard: describe(this.jaccard),
      newErrors: this.newErrors.listed,
      fixedErrors: this.fixedErrors.listed,
      otherStateChanges: this.otherStateChanges.listed,
      newFailures: this.newFailures.listed,
      fixedFailures: this.fixedFailures.listed,
      countChanges: this.countChanges.listed,
      searchVerdictChanges: this.searchVerdictChanges.listed,
      unpaired: this.unpaired.listed,
      edited: { ...this.edited.listed, inGates: this.includeEdited },
    };
    const gates = evaluateGates(summary, thresholds, bootstrap.confidence, levels);
    return { ...summary, gates, levels: Object.fromEntries(levels), failed: gates.some((g) => g.enabled && g.failed), starved: starvedGates(summary, thresholds) };
  }

  private addPair(metric: MetricName, cluster: string, b: number | null, c: number | null): void {
    const p = this.pairs.get(metric)!;
    if (b !== null || c !== null) p.measured++;
    if (b === null || c === null) return;
    // Rows arrive in key order, so the pairs of a question (all its repeats and turns) are contiguous.
    if (cluster !== p.lastCluster || p.b.length === 0) {
      p.starts.push(p.b.length);
      p.lastCluster = cluster;
    }
    p.b.push(b);
    p.c.push(c);
  }
}

interface MetricPairs {
  b: NumberColumn;
  c: NumberColumn;
  measured: number;
  /** Offset of the first pair of each cluster. */
  starts: NumberColumn;
  lastCluster: string;
}

function describe(column: NumberColumn): { n: number; median: number | null; mean: number | null } {
  return { n: column.length, median: sortedMedian(column.sorted()), mean: mean(column.values()) };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/**
 * A gate cannot pass on nothing: no pair at all, or a gated metric that was measured but on fewer pairs
 * than --min-pairs. A metric neither run reports (credits on the versioned API) is not held against it.
 */
export function starvedGates(s: Omit<CompareSummary, 'gates' | 'failed' | 'starved' | 'levels'>, t: Thresholds): string[] {
  if (s.questions.paired + s.searches.paired === 0) return ['no question turn or search paired'];
  // One flag gates question and search latency: that gate judged something if either had enough pairs.
  const gates = new Map<string, MetricResult[]>();
  for (const m of s.metrics.filter((m) => m.gated && m.measured > 0)) {
    const gate = m.metric === 'search_latency' ? 'latency' : m.metric;
    gates.set(gate, [...(gates.get(gate) ?? []), m]);
  }
  return [...gates]
    .filter(([, metrics]) => metrics.every((m) => m.n < t.minPairs))
    .map(([gate, metrics]) => `${gate} regression: ${metrics.map((m) => `${m.n} comparable ${m.metric === 'search_latency' ? 'search' : 'question'} pairs`).join(' and ')}, fewer than --min-pairs ${t.minPairs}`);
}

/** Every gate, enabled or not, with what it found; the test gates at their `levels` (gateLevels). */
export function evaluateGates(s: Omit<CompareSummary, 'gates' | 'failed' | 'starved' | 'levels'>, t: Thresholds, confidence: number, levels: ReadonlyMap<string, number>): GateResult[] {
  const gates: GateResult[] = s.metrics.map((m) => ({
    name: `${m.metric} regression`,
    enabled: m.gated,
    failed: m.judgement === 'regressed',
    detail:
      m.measured === 0 && m.n === 0
        ? 'not measured in either run (the API reports none): not judged'
        : m.judgement === 'too few pairs'
        ? `${m.n} comparable pairs, fewer than ${t.minPairs}: not judged`
        : `${m.judgement}${m.relative !== null ? ` (median ${m.relative >= 0 ? '+' : ''}${pct(m.relative)}, CI ${pct(m.relativeLow ?? 0)} to ${pct(m.relativeHigh ?? 0)})` : ''}` +
          (m.threshold === null ? ', threshold off' : `, threshold ${pct(m.threshold)}`) +
          (m.judgement === 'unchanged' && m.detectable !== null ? `; could have detected +${pct(m.detectable)} or more` : ''),
    ...(m.measured === 0 && m.n === 0 ? { notJudged: 'not measured' } : m.judgement === 'too few pairs' ? { notJudged: 'not judged: too few pairs' } : {}),
    ...(levels.has(`${m.metric} regression`) ? { level: levels.get(`${m.metric} regression`)! } : {}),
  }));
  const on = (name: FailOn): boolean => t.failOn.has(name);
  const o = s.outcomes;
  const k = o.passHatK;
  // Each test at a level; a failed gate's level passes on to the others (passOn). Metric gates keep theirs.
  const failsAt: Record<(typeof TEST_GATES)[number], (level: number) => boolean> = {
    'new-errors': (l) => worseThanAllowed(o.errorRate, 'rise', t.errorRateRise, l),
    'pass-rate': (l) => worseThanAllowed(o.passRate, 'drop', t.passRateDrop, l),
    'truncated-no-answer': (l) => worseThanAllowed(o.truncatedNoAnswerRate, 'rise', t.errorRateRise, l),
    'pass-k': (l) => k.change !== null && k.test.pLower < l && -k.change > t.passRateDrop + 1e-12,
  };
  const metricFailed = new Map(gates.map((g) => [g.name, g.failed]));
  const enabled = [...TEST_GATES.filter(on), ...gates.filter((g) => g.enabled && levels.has(g.name)).map((g) => g.name)];
  const passed = passOn(levels, enabled, (g, l) => (g in failsAt ? failsAt[g as keyof typeof failsAt](l) : metricFailed.get(g) === true));
  const level = (g: string): number => passed.get(g) ?? levels.get(g) ?? 1 - confidence;
  const errorsRose = failsAt['new-errors'](level('new-errors'));
  const passDropped = failsAt['pass-rate'](level('pass-rate'));
  const noAnswerRose = failsAt['truncated-no-answer'](level('truncated-no-answer'));
  const passKDropped = failsAt['pass-k'](level('pass-k'));
  // Near its limit: passed, but changed beyond what is allowed with a p-value below twice its level (the verdict's suspect tier).
  const test = (name: FailOn, failed: boolean, p: number | null, beyondAllowed: boolean): Pick<GateResult, 'level' | 'p' | 'near'> => ({
    level: level(name),
    p,
    near: !failed && beyondAllowed && p !== null && p < 2 * level(name),
  });
  const unjudged = (none: boolean, words: string): Pick<GateResult, 'notJudged'> => (none ? { notJudged: words } : {});
  gates.push(
    {
      name: 'new-errors',
      enabled: on('new-errors'),
      failed: errorsRose,
      detail:
        rateDetail('error rate', o.errorRate, confidence, 'rise', t.errorRateRise, errorsRose, level('new-errors')) +
        `; ${s.newErrors.count} items newly erred, ${s.fixedErrors.count} fixed (listed below)`,
      ...unjudged(o.errorRate.change === null, 'not judged: no item ended on both sides'),
      ...test('new-errors', errorsRose, o.errorRate.change === null ? null : o.errorRate.test.pUpper, (o.errorRate.change ?? 0) > t.errorRateRise + 1e-12),
    },
    {
      name: 'pass-rate',
      enabled: on('pass-rate'),
      failed: passDropped,
      detail: `${rateDetail('pass rate', o.passRate, confidence, 'drop', t.passRateDrop, passDropped, level('pass-rate'))} over ${o.passRate.n} items answered in both runs`,
      ...unjudged(o.passRate.change === null, 'not judged: no item checked on both sides'),
      ...test('pass-rate', passDropped, o.passRate.change === null ? null : o.passRate.test.pLower, -(o.passRate.change ?? 0) > t.passRateDrop + 1e-12),
    },
    {
      name: 'pass-k',
      enabled: on('pass-k'),
      failed: passKDropped,
      detail:
        k.change === null
          ? `no question has ${plural(k.k, 'repeat')} with checks on both sides`
          : `pass^${k.k} ${pct(k.baseline!)} → ${pct(k.candidate!)} over ${plural(k.questions, 'question')}, ${signedPoints(k.change)}, p = ${pValue(k.test.pLower)}` +
            (passKDropped ? '' : (couldNotBeRed(k.questions, level('pass-k')) ?? '').replace(/^(?=.)/, '; ')),
      ...unjudged(k.change === null, `not judged: no question has ${plural(k.k, 'repeat')}`),
      ...test('pass-k', passKDropped, k.change === null ? null : k.test.pLower, -(k.change ?? 0) > t.passRateDrop + 1e-12),
    },
    { name: 'any-new-error', enabled: on('any-new-error'), failed: s.newErrors.count > 0, detail: `${s.newErrors.count} items ended well in the baseline and erred in the candidate` },
    { name: 'verdict-changes', enabled: on('verdict-changes'), failed: s.newFailures.count > 0, detail: `${s.newFailures.count} items went from pass to fail, ${s.fixedFailures.count} from fail to pass` },
    { name: 'count-changes', enabled: on('count-changes'), failed: s.countChanges.count > 0, detail: `${s.countChanges.count} searches changed their match count` },
    { name: 'search-verdicts', enabled: on('search-verdicts'), failed: s.searchVerdictChanges.count > 0, detail: `${s.searchVerdictChanges.count} searches changed their verdict` },
    {
      name: 'truncated-no-answer',
      enabled: on('truncated-no-answer'),
      failed: noAnswerRose,
      detail: rateDetail('truncated-no-answer rate', o.truncatedNoAnswerRate, confidence, 'rise', t.errorRateRise, noAnswerRose, level('truncated-no-answer')),
      ...unjudged(o.truncatedNoAnswerRate.change === null, 'not judged: no item ended on both sides'),
      ...test('truncated-no-answer', noAnswerRose, o.truncatedNoAnswerRate.change === null ? null : o.truncatedNoAnswerRate.test.pUpper, (o.truncatedNoAnswerRate.change ?? 0) > t.errorRateRise + 1e-12),
    },
    {
      name: 'unpaired',
      enabled: on('unpaired'),
      failed: s.unpaired.count > 0,
      detail: `${s.questions.baselineOnly + s.searches.baselineOnly} only in the baseline, ${s.questions.candidateOnly + s.searches.candidateOnly} only in the candidate`,
    },
  );
  return gates;
}

/**
 * The false-alarm rate of the tests together, 1 - confidence: what a command that judges one test (the
 * judge's gates) uses whole; compare splits it over its test gates (gateLevels).
 */
export function gateAlpha(confidence: number): number {
  return 1 - confidence;
}

const points = (x: number): string => `${Math.abs(x * 100).toFixed(1)} points`;
const signed = (x: number): string => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)}`;
const signedPoints = (x: number): string => `${signed(x)} points`;

/**
 * A test over N questions (sign flips of their changes) can give no p-value below 0.5^N, all N questions
 * changed the bad way: at or above the gate's level it could not be red whatever the runs had done.
 */
export function couldNotBeRed(questions: number, level: number): string | null {
  const smallest = 0.5 ** questions;
  return smallest >= level ? `could not be red with ${plural(questions, 'question')} (the smallest p-value ${plural(questions, 'question')} can give is ${pValue(smallest)}, not below its level ${level.toPrecision(2)})` : null;
}

/** p-values as people read them: two significant digits, "< 0.001" below that. */
export function pValue(p: number): string {
  return p < 0.001 ? '< 0.001' : p.toPrecision(2);
}

/** "pass rate 83.3% → 66.7%, −16.7 points (95% CI −27.0 to −6.0), p = 0.002 (level 0.040); could have detected a drop of 9.0 points". */
function rateDetail(name: string, r: RateChange, confidence: number, bad: 'drop' | 'rise', allowed: number, failed: boolean, level: number): string {
  if (r.change === null) return `${name}: no item ended on both sides`;
  const p = bad === 'drop' ? r.test.pLower : r.test.pUpper;
  const ci = `${Math.round(confidence * 100)}% CI ${signed(r.low!)} to ${signedPoints(r.high!)}`;
  const head = `${name} ${pct(r.baseline!)} → ${pct(r.candidate!)}, ${signedPoints(r.change)} (${ci}), p = ${pValue(p)} against a level of ${level.toPrecision(2)}${allowed > 0 ? `, allowed ${bad} ${pct(allowed)}` : ''}`;
  if (failed) return head;
  const never = couldNotBeRed(r.clusters, level);
  if (never) return `${head}; ${never}`;
  const detectable = detectableRateDrop(r, level, allowed, bad);
  return `${head}; could have detected a ${bad} of ${detectable === null ? '–' : points(detectable)} or more`;
}
