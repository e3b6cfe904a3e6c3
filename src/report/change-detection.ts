import { fnv1a } from '../random.js';
import { CHANGE_POINT_DEFAULTS, detectChangePoints, nightsNeeded } from '../stats/change-points.js';
import { type MetricSeries, type Night, type SeriesMetric, type SeriesScope } from './history-series.js';

// Change points of each nightly series (`report --history N --detect`), sized, dated and set beside the
// instance's nearest version change. Rates are tested on their own scale (a size in points); latency,
// credits and tokens on the log scale (a size as a ratio), where a slowdown by a factor is a shift.

export const DETECTION_METHOD =
  'binary segmentation of the standardized mean shift (CUSUM), each split kept when a permutation test (199 permutations) gives p <= 0.05; ' +
  'at least 3 nights on either side, except at the newest end, where the last 1-3 nights and a creep over the last 10 are tested too (their p-values combined by a weighted Fisher sum, calibrated over the same permutations); the size is the difference of the neighbouring segments\' means with a 95% Student t interval from the pooled within-segment spread ' +
  '(log scale for latency, credits and tokens: a ratio); docs/statistics.md, "Change points"';

export interface VersionChange {
  runId: number;
  startedAt: string;
  from: string;
  to: string;
  /** Nights from the change point to the version change: negative when the version changed before. */
  nights: number;
}

export interface DetectedChange {
  scope: SeriesScope;
  metric: SeriesMetric;
  /** The first night of the new level. */
  runId: number;
  startedAt: string;
  /** Index of that night in the history, oldest first. */
  night: number;
  /** Levels before and after, in the metric's unit (rates 0-1, milliseconds, credits, tokens). */
  before: number;
  after: number;
  /** Rates: after - before in points (0-1); others: after / before - 1. With its 95% interval. */
  change: number;
  low: number;
  high: number;
  unit: 'points' | 'ratio';
  p: number;
  /** The nearest night on which the instance's version changed; null when none is recorded. */
  version: VersionChange | null;
}

export interface Detection {
  method: string;
  seed: number;
  nights: number;
  need: number;
  /** Set when the history has fewer nights than the method needs: nothing was looked for. */
  tooFew: boolean;
  /** Whether versions were recorded for any night. */
  versionsKnown: boolean;
  series: number;
  changes: DetectedChange[];
  /** The series that changed, for the charts: values per night and each night's segment level. */
  changedSeries: Array<{ scope: SeriesScope; metric: SeriesMetric; values: Array<number | null> }>;
}

const LOG_METRICS: ReadonlySet<SeriesMetric> = new Set(['latency p50', 'latency p90', 'credits', 'tokens']);

export function detectChanges(nights: readonly Night[], series: readonly MetricSeries[], seed: number): Detection {
  const need = nightsNeeded(CHANGE_POINT_DEFAULTS.minSegment);
  const base = { method: DETECTION_METHOD, seed, nights: nights.length, need, versionsKnown: nights.some((n) => Object.values(n.productVersions).some((v) => v !== null && v !== undefined)), series: series.length };
  if (nights.length < need) return { ...base, tooFew: true, changes: [], changedSeries: [] };
  const changes: DetectedChange[] = [];
  const changedSeries: Detection['changedSeries'] = [];
  const versionChanges = new Map<string, ReturnType<typeof versionChangesOf>>();
  const changesOf = (target: string) => {
    let found = versionChanges.get(target);
    if (!found) versionChanges.set(target, (found = versionChangesOf(nights, target)));
    return found;
  };
  for (const s of series) {
    const log = LOG_METRICS.has(s.metric);
    const values = log ? s.values.map((v) => (v !== null && v > 0 ? Math.log(v) : null)) : s.values;
    const found = detectChangePoints(values, { seed: seriesSeed(seed, s) }).changePoints;
    if (found.length === 0) continue;
    changedSeries.push({ scope: s.scope, metric: s.metric, values: s.values });
    for (const c of found) {
      const night = nights[c.index]!;
      const scale = log ? (x: number) => Math.exp(x) - 1 : (x: number) => x;
      changes.push({
        scope: s.scope,
        metric: s.metric,
        runId: night.runId,
        startedAt: night.startedAt,
        night: c.index,
        before: log ? Math.exp(c.before) : c.before,
        after: log ? Math.exp(c.after) : c.after,
        change: scale(c.size),
        low: scale(c.low),
        high: scale(c.high),
        unit: log ? 'ratio' : 'points',
        p: c.p,
        version: nearest(changesOf(s.scope.target), c.index),
      });
    }
  }
  return { ...base, tooFew: false, changes, changedSeries };
}

/** The nights on which the target's recorded version differs from the last one recorded before. */
function versionChangesOf(nights: readonly Night[], target: string): Array<Omit<VersionChange, 'nights'> & { night: number }> {
  const out: Array<Omit<VersionChange, 'nights'> & { night: number }> = [];
  let last: string | null = null;
  nights.forEach((n, i) => {
    const version = n.productVersions[target] ?? null;
    if (version === null) return;
    if (last !== null && version !== last) out.push({ runId: n.runId, startedAt: n.startedAt, from: last, to: version, night: i });
    last = version;
  });
  return out;
}

function nearest(changes: ReturnType<typeof versionChangesOf>, night: number): VersionChange | null {
  let best: VersionChange | null = null;
  for (const { night: at, ...c } of changes) if (best === null || Math.abs(at - night) < Math.abs(best.nights)) best = { ...c, nights: at - night };
  return best;
}

/** A seed per series, so that a series' result does not depend on which other series were looked at. */
function seriesSeed(seed: number, s: MetricSeries): number {
  const key = `${s.scope.target}\u0000${s.scope.kind}\u0000${s.scope.name ?? ''}\u0000${s.metric}`;
  // Each character's first UTF-16 unit, as seeds were always made.
  return fnv1a(Array.from(key, (ch) => ch.charCodeAt(0)), 2166136261 ^ seed);
}
