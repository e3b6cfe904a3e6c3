import type Database from 'better-sqlite3';
import { compare, parseThreshold, THRESHOLD_METRICS, type ThresholdExpression, type ThresholdMetric } from '../config/thresholds.js';
import { ExitCode } from '../errors/exit-codes.js';
import type { RunRecord } from '../store/queries.js';
import { collectRunMetrics, type ScopeMetrics } from './run-metrics.js';
import { mean, median, percentile, sum } from '../stats/percentiles.js';

// A suite's thresholds judged on a run's aggregate metrics (run-metrics.ts), per target and for the whole run.

export interface ThresholdResult {
  metric: ThresholdMetric;
  /** As written in the suite, e.g. `p95 < 4m`. */
  expression: string;
  /** The target, or null for the whole run. */
  target: string | null;
  /** The aggregate (milliseconds for durations); null when the metric was not measured. */
  value: number | null;
  passed: boolean;
  /** Why it failed without a value: `not measured` (nothing recorded for the metric). */
  note?: string;
}

type Samples = { values: readonly number[] } | { numerator: number; denominator: number };

/** The one place that says which recorded figures each metric reads; a new metric starts here and in THRESHOLD_METRICS. */
function samples(scope: ScopeMetrics, metric: ThresholdMetric): Samples {
  switch (metric) {
    case 'latency':
      return { values: scope.turnWallMs };
    case 'serverLatency':
      return { values: scope.turnServerMs };
    case 'searchLatency':
      return { values: scope.searchWallMs };
    case 'searchServerLatency':
      return { values: scope.searchServerMs };
    case 'errorRate':
      return { numerator: scope.items.itemErrors, denominator: scope.items.done };
    case 'passRate':
      return { numerator: scope.items.expectPassed, denominator: scope.items.expectItems };
    case 'credits':
      return { values: scope.conversationCredits };
    case 'tokens':
      return { values: scope.conversationTokens };
    case 'judgeScore':
      return { values: scope.judgeScores };
    case 'citationValidity':
      return { numerator: scope.citations.valid, denominator: scope.citations.valid + scope.citations.invalid };
  }
}

function aggregate(data: Samples, expression: ThresholdExpression): number | null {
  if ('numerator' in data) return data.denominator === 0 ? null : data.numerator / data.denominator;
  const { values } = data;
  if (expression.percentile !== undefined) return percentile(values, expression.percentile);
  switch (expression.aggregation) {
    case 'avg':
      return mean(values);
    case 'med':
      return median(values);
    // Nearest rank: p0 is the smallest value, p100 the largest.
    case 'min':
      return percentile(values, 0);
    case 'max':
      return percentile(values, 100);
    default:
      return sum(values);
  }
}

/** The thresholds a run was started with (kept in its options), as written: metric to expressions. */
export function runThresholds(run: RunRecord): Array<[ThresholdMetric, string[]]> {
  const stored = run.options.thresholds;
  if (typeof stored !== 'object' || stored === null) return [];
  return Object.entries(stored as Record<string, string[]>).filter((entry): entry is [ThresholdMetric, string[]] => entry[0] in THRESHOLD_METRICS);
}

/** Judges every threshold on the whole run and, when the run has several targets, on each target. */
export function evaluateThresholds(scopes: readonly ScopeMetrics[], thresholds: ReadonlyArray<[ThresholdMetric, readonly string[]]>): ThresholdResult[] {
  const judged = scopes.length > 2 ? scopes : scopes.slice(0, 1);
  return thresholds.flatMap(([metric, expressions]) =>
    expressions.flatMap((text) => {
      const expression = parseThreshold(metric, text);
      return judged.map((scope): ThresholdResult => {
        if (typeof expression === 'string') return { metric, expression: text, target: scope.target, value: null, passed: false, note: expression };
        const value = aggregate(samples(scope, metric), expression);
        if (value === null) return { metric, expression: text, target: scope.target, value, passed: false, note: 'not measured' };
        return { metric, expression: text, target: scope.target, value, passed: compare(value, expression.op, expression.limit) };
      });
    }),
  );
}

/** The run's thresholds judged on what it recorded; empty when its suite set none. */
export function runThresholdResults(db: Database.Database, run: RunRecord): ThresholdResult[] {
  const thresholds = runThresholds(run);
  return thresholds.length === 0 ? [] : evaluateThresholds(collectRunMetrics(db, run.id), thresholds);
}

/** The exit code thresholds call for: 9 when one failed, else none (ok). */
export function thresholdsExitCode(results: readonly ThresholdResult[]): ExitCode {
  return results.some((r) => !r.passed) ? ExitCode.thresholdsFailed : ExitCode.ok;
}

/** The value in the metric's unit: seconds for durations, 0 to 1 for shares and scores. */
export function formatThresholdValue(metric: ThresholdMetric, value: number | null): string {
  if (value === null) return 'not measured';
  switch (THRESHOLD_METRICS[metric].unit) {
    case 'duration':
      return `${(value / 1000).toFixed(value < 10_000 ? 2 : 1)} s`;
    case 'share':
    case 'score':
      return String(Number(value.toFixed(4)));
    case 'amount':
      return String(Number(value.toFixed(2)));
  }
}

/** `latency p95 < 4m`, with ` (target)` when judged on one target. */
export function thresholdName(r: ThresholdResult): string {
  return `${r.metric} ${r.expression.trim()}${r.target === null ? '' : ` (${r.target})`}`;
}

/** `passed`, `FAILED` or `FAILED: not measured`. */
export function thresholdVerdict(r: ThresholdResult): string {
  return r.passed ? 'passed' : r.note ? `FAILED: ${r.note}` : 'FAILED';
}

/** Lines for the run summary: every threshold with its value and verdict; empty when none was set. */
export function formatThresholds(results: readonly ThresholdResult[]): string {
  if (results.length === 0) return '';
  const failed = results.filter((r) => !r.passed).length;
  const names = results.map(thresholdName);
  const width = Math.max(...names.map((n) => n.length));
  const lines = results.map((r, i) => `  ${names[i]!.padEnd(width)}  ${r.value === null ? '' : `${formatThresholdValue(r.metric, r.value)}  `}${thresholdVerdict(r)}`);
  return `\nThresholds: ${results.length - failed} passed, ${failed} failed${failed > 0 ? ` (exit code ${ExitCode.thresholdsFailed})` : ''}\n${lines.join('\n')}\n`;
}
