import { durationToMs } from './duration.js';

/*
 * Thresholds: limits on a run's aggregate metrics, written k6 style as `[aggregation] operator value`
 * (`p95 < 4m`, `< 0.05`, `sum < 500`). The suite schema validates them with this parser, and the report
 * parses the stored text again to evaluate it, so both read one grammar.
 */

/** What a metric's values are, which decides how its limit is written and shown. */
export type MetricUnit = 'duration' | 'share' | 'amount' | 'score';

export interface MetricSpec {
  unit: MetricUnit;
  /** The aggregations the metric takes; the first is used when an expression names none (only for rates). */
  aggregations: readonly string[];
  /** An expression may leave out its aggregation (`< 0.05`): the metric is one number per scope. */
  implicit?: boolean;
  description: string;
}

const DISTRIBUTION = ['pNN', 'avg', 'med', 'min', 'max'] as const;

/** Every metric a `thresholds:` block can limit; docs/suites.md describes the same. */
export const THRESHOLD_METRICS = {
  latency: { unit: 'duration', aggregations: DISTRIBUTION, description: "Wall time of each question turn, as dsbench measured it (the summary's wall p50/p90/p99)." },
  serverLatency: { unit: 'duration', aggregations: DISTRIBUTION, description: 'Server-side time of each question turn, as the server reported it.' },
  searchLatency: { unit: 'duration', aggregations: DISTRIBUTION, description: 'Wall time of each streaming search, from sending the request that was answered to its done event.' },
  searchServerLatency: { unit: 'duration', aggregations: DISTRIBUTION, description: "The server's own time of each streaming search (durationMs of its last progress event), as the server reported it." },
  errorRate: {
    unit: 'share',
    aggregations: ['rate'],
    implicit: true,
    description: 'Share of the finished items (questions and searches) that ended in a failure the suite did not expect (error, client error, timeout, HTTP error, truncated).',
  },
  passRate: { unit: 'share', aggregations: ['rate'], implicit: true, description: 'Share of the items with checks that passed every check.' },
  credits: { unit: 'amount', aggregations: ['sum', ...DISTRIBUTION], description: 'Credits of each conversation (all its turns); sum: the whole run. Not measured on the versioned API.' },
  tokens: { unit: 'amount', aggregations: ['sum', ...DISTRIBUTION], description: 'Tokens of each conversation (all its turns); sum: the whole run. Not measured on the versioned API.' },
  judgeScore: { unit: 'score', aggregations: DISTRIBUTION, description: "The judge's score (0 to 1) of each graded turn with a rubric or reference." },
  citationValidity: { unit: 'share', aggregations: ['rate'], implicit: true, description: 'Share of the checked citations that resolve (repository, file and lines exist).' },
} as const satisfies Record<string, MetricSpec>;

export type ThresholdMetric = keyof typeof THRESHOLD_METRICS;
export const THRESHOLD_METRIC_NAMES = Object.keys(THRESHOLD_METRICS) as ThresholdMetric[];

export type Comparison = '<' | '<=' | '>' | '>=' | '==';

export interface ThresholdExpression {
  /** `p95`, `avg`, `med`, `min`, `max`, `sum` or `rate`. */
  aggregation: string;
  /** The percentile for `pNN`. */
  percentile?: number;
  op: Comparison;
  /** The limit in the metric's unit: milliseconds for durations, 0 to 1 for shares and scores. */
  limit: number;
}

const EXPRESSION = /^\s*([a-z][a-z0-9.]*)?\s*(<=|>=|==|<|>)\s*(\S+)\s*$/i;

function aggregationsText(spec: MetricSpec): string {
  return spec.aggregations.map((a) => (a === 'pNN' ? 'pNN (p95, p99.9, ...)' : a)).join(', ');
}

function parseAggregation(text: string | undefined, spec: MetricSpec): { aggregation: string; percentile?: number } | string {
  if (text === undefined) {
    return spec.implicit ? { aggregation: spec.aggregations[0]! } : `name an aggregation before the operator: ${aggregationsText(spec)}`;
  }
  const lower = text.toLowerCase();
  const p = /^p(\d+(?:\.\d+)?)$/.exec(lower);
  if (p && spec.aggregations.includes('pNN')) {
    const percentile = Number(p[1]);
    if (percentile > 0 && percentile <= 100) return { aggregation: lower, percentile };
    return `percentile ${text} must be between p0 and p100`;
  }
  if (spec.aggregations.includes(lower) && lower !== 'pNN') return { aggregation: lower };
  return `unknown aggregation "${text}"; this metric takes ${aggregationsText(spec)}`;
}

function parseLimit(text: string, unit: MetricUnit): number | string {
  const plain = /^\d+(?:\.\d+)?$/.test(text) ? Number(text) : undefined;
  switch (unit) {
    case 'duration': {
      const ms = plain !== undefined ? durationToMs(plain) : durationToMs(text);
      return ms ?? `"${text}" is not a duration; use seconds (240) or units: 500ms, 90s, 4m, 1h`;
    }
    case 'share':
    case 'score': {
      const percent = unit === 'share' ? /^(\d+(?:\.\d+)?)%$/.exec(text) : null;
      const value = percent ? Number(percent[1]) / 100 : plain;
      if (value !== undefined && value <= 1) return value;
      return `"${text}" is not a ${unit === 'share' ? 'share between 0 and 1 (0.05) or a percentage (5%)' : 'score between 0 and 1'}`;
    }
    case 'amount':
      return plain ?? `"${text}" is not a number`;
  }
}

/** Parses one expression for `metric`; a string is the reason it is not valid. */
export function parseThreshold(metric: ThresholdMetric, text: string): ThresholdExpression | string {
  const spec: MetricSpec = THRESHOLD_METRICS[metric];
  const match = EXPRESSION.exec(text);
  if (!match) return `"${text}" is not a threshold; write [aggregation] operator value, e.g. ${example(metric)}`;
  const aggregation = parseAggregation(match[1], spec);
  if (typeof aggregation === 'string') return aggregation;
  const limit = parseLimit(match[3]!, spec.unit);
  if (typeof limit === 'string') return limit;
  return { ...aggregation, op: match[2] as Comparison, limit };
}

/** A valid expression for the metric, for messages and docs. */
export function example(metric: ThresholdMetric): string {
  switch (THRESHOLD_METRICS[metric].unit) {
    case 'duration':
      return '"p95 < 4m"';
    case 'share':
      return metric === 'passRate' || metric === 'citationValidity' ? '">= 0.8"' : '"< 0.05"';
    case 'score':
      return '"avg >= 0.7"';
    case 'amount':
      return '"sum < 500"';
  }
}

export function compare(value: number, op: Comparison, limit: number): boolean {
  switch (op) {
    case '<':
      return value < limit;
    case '<=':
      return value <= limit;
    case '>':
      return value > limit;
    case '>=':
      return value >= limit;
    case '==':
      return value === limit;
  }
}
