import { NumberColumn, mean, sortedMedian } from '../percentiles.js';
import { type BootstrapOptions, type PairedChange, pairedMedianChange } from './bootstrap.js';
import { type FailOn, type GateResult, type Judgement, type Thresholds, judge } from './gates.js';
import type { CompareRow } from './pairs.js';

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
  passRate: { items: number; baselinePassed: number; candidatePassed: number; baseline: number | null; candidate: number | null; change: number | null };
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
  gates: GateResult[];
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
  private readonly pairs = new Map<MetricName, { b: NumberColumn; c: NumberColumn; measured: number }>(
    METRICS.map((m) => [m, { b: new NumberColumn(), c: new NumberColumn(), measured: 0 }]),
  );
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

  constructor(maxListed = 50) {
    const c = (): Capped => new Capped(maxListed);
    this.newErrors = c();
    this.fixedErrors = c();
    this.otherStateChanges = c();
    this.newFailures = c();
    this.fixedFailures = c();
    this.countChanges = c();
    this.searchVerdictChanges = c();
    this.unpaired = c();
  }

  add(row: CompareRow): void {
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

    if (!row.comparable) return;
    if (row.kind === 'question') {
      this.addPair('latency', row.latencyBaseline, row.latencyCandidate);
      this.addPair('tokens', row.tokensBaseline, row.tokensCandidate);
      this.addPair('credits', row.creditsBaseline, row.creditsCandidate);
      this.addPair('tool_calls', row.toolCallsBaseline, row.toolCallsCandidate);
      if (row.answerSimilarity !== null) this.similarity.push(row.answerSimilarity);
      if (row.sourcesJaccard !== null) this.jaccard.push(row.sourcesJaccard);
    } else {
      this.addPair('search_latency', row.latencyBaseline, row.latencyCandidate);
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
    const metrics = METRICS.map((metric): MetricResult => {
      const { b, c, measured } = this.pairs.get(metric)!;
      const change = pairedMedianChange(b.values(), c.values(), bootstrap);
      const threshold = thresholdOf[metric];
      return { metric, unit: UNITS[metric], ...change, threshold, judgement: judge(change, threshold, thresholds.minPairs), gated: threshold !== null, measured };
    });
    const rate = (n: number): number | null => (this.pass.items === 0 ? null : n / this.pass.items);
    const baselineRate = rate(this.pass.baselinePassed);
    const candidateRate = rate(this.pass.candidatePassed);
    const summary: Omit<CompareSummary, 'gates' | 'failed' | 'starved'> = {
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
    };
    const gates = evaluateGates(summary, thresholds);
    return { ...summary, gates, failed: gates.some((g) => g.enabled && g.failed), starved: starvedGates(summary, thresholds) };
  }

  private addPair(metric: MetricName, b: number | null, c: number | null): void {
    const p = this.pairs.get(metric)!;
    if (b !== null || c !== null) p.measured++;
    if (b === null || c === null) return;
    p.b.push(b);
    p.c.push(c);
  }
}

function describe(column: NumberColumn): { n: number; median: number | null; mean: number | null } {
  return { n: column.length, median: sortedMedian(column.sorted()), mean: mean(column.values()) };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/**
 * A gate cannot pass on nothing: no pair at all, or a gated metric that was measured but on fewer pairs
 * than --min-pairs. A metric neither run reports (credits on the versioned API) is not held against it.
 */
export function starvedGates(s: Omit<CompareSummary, 'gates' | 'failed' | 'starved'>, t: Thresholds): string[] {
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

/** Every gate, enabled or not, with what it found. */
export function evaluateGates(s: Omit<CompareSummary, 'gates' | 'failed' | 'starved'>, t: Thresholds): GateResult[] {
  const gates: GateResult[] = s.metrics.map((m) => ({
    name: `${m.metric} regression`,
    enabled: m.gated,
    failed: m.judgement === 'regressed',
    detail:
      m.judgement === 'too few pairs'
        ? `${m.n} comparable pairs, fewer than ${t.minPairs}: not judged`
        : `${m.judgement}${m.relative !== null ? ` (median ${m.relative >= 0 ? '+' : ''}${pct(m.relative)}, CI ${pct(m.relativeLow ?? 0)} to ${pct(m.relativeHigh ?? 0)})` : ''}` +
          (m.threshold === null ? ', threshold off' : `, threshold ${pct(m.threshold)}`),
  }));
  const on = (name: FailOn): boolean => t.failOn.has(name);
  const drop = s.passRate.change === null ? 0 : -s.passRate.change;
  gates.push(
    { name: 'new-errors', enabled: on('new-errors'), failed: s.newErrors.count > 0, detail: `${s.newErrors.count} new errors, ${s.fixedErrors.count} fixed` },
    {
      name: 'pass-rate',
      enabled: on('pass-rate'),
      failed: drop > t.passRateDrop + 1e-12,
      detail:
        s.passRate.change === null
          ? 'no item has checks on both sides'
          : `${pct(s.passRate.baseline!)} → ${pct(s.passRate.candidate!)} over ${s.passRate.items} items (allowed drop ${pct(t.passRateDrop)})`,
    },
    { name: 'verdict-changes', enabled: on('verdict-changes'), failed: s.newFailures.count > 0, detail: `${s.newFailures.count} items went from pass to fail, ${s.fixedFailures.count} from fail to pass` },
    { name: 'count-changes', enabled: on('count-changes'), failed: s.countChanges.count > 0, detail: `${s.countChanges.count} searches changed their match count` },
    { name: 'search-verdicts', enabled: on('search-verdicts'), failed: s.searchVerdictChanges.count > 0, detail: `${s.searchVerdictChanges.count} searches changed their verdict` },
    {
      name: 'unpaired',
      enabled: on('unpaired'),
      failed: s.unpaired.count > 0,
      detail: `${s.questions.baselineOnly + s.searches.baselineOnly} only in the baseline, ${s.questions.candidateOnly + s.searches.candidateOnly} only in the candidate`,
    },
  );
  return gates;
}
