import type Database from 'better-sqlite3';
import { itemLatencies, itemQuality } from '../store/quality-queries.js';
import { DEFAULT_THRESHOLDS, gateLevels } from './compare/gates.js';
import { drop80 } from '../stats/cluster-rate.js';
import { normalQuantile } from '../stats/sign-flip.js';

// How big a suite must be to detect a change, from the noise of two earlier runs of it (docs/statistics.md,
// "Planning a suite"). Two models, each fitted on the runs given:
// - latency, on the log scale: the paired log-ratio d(q, r) of question q's repeat r has a between-question
//   variance (of question means) and a within-question one (between repeats). With Q questions and R
//   repeats the mean log-ratio has variance (between + within / R) / Q; the median the gate uses costs
//   about pi/2 times that. A change of delta is caught 80% of the time when
//   log(1 + delta) - log(1 + threshold) >= (z(1 - level) + z(0.8)) * SE, level the latency gate's.
// - pass rate: with the questions' pass chances p(q), a question's paired difference over its R repeats
//   has variance 2 R p (1 - p) when nothing changed, and each item a drop makes fail adds about one more:
//   with n = Q R items a drop of d points (spread over the items) is caught 80% of the time when
//   n d = (z(1 - level) + z(0.8)) sqrt(2 n v + n d), level the pass-rate gate's share of the false-alarm
//   rate, v the mean of p (1 - p) over questions (unbiased per question from its checked repeats in both
//   runs, errors left out as the gate leaves them out: c (m - c) / (m (m - 1)) over m repeats).
// Both levels are those of the default gates with latency and credits judged (docs/statistics.md).

export interface NoiseEstimate {
  /** Latency: variances of the paired log-ratio, between question means and between repeats; null without pairs. */
  latency: { pairs: number; questions: number; between: number; within: number } | null;
  /** Pass rate: mean p(1 - p) per item over questions with two or more checked repeats in the two runs together; null without. */
  passRate: { questions: number; variance: number } | null;
}

export function estimateNoise(db: Database.Database, baselineRunId: number, candidateRunId: number): NoiseEstimate {
  return { latency: latencyNoise(db, baselineRunId, candidateRunId), passRate: passNoise(db, [baselineRunId, candidateRunId]) };
}

function latencyNoise(db: Database.Database, b: number, c: number): NoiseEstimate['latency'] {
  const base = new Map(itemLatencies(db, b).map((r) => [`${r.target}\u0000${r.suiteItemId}\u0000${r.repeat}`, r.ms]));
  const byQuestion = new Map<string, number[]>();
  let pairs = 0;
  for (const r of itemLatencies(db, c)) {
    const ms = base.get(`${r.target}\u0000${r.suiteItemId}\u0000${r.repeat}`);
    if (ms === undefined) continue;
    pairs++;
    const q = `${r.target}\u0000${r.suiteItemId}`;
    const logs = byQuestion.get(q);
    if (logs) logs.push(Math.log(r.ms / ms));
    else byQuestion.set(q, [Math.log(r.ms / ms)]);
  }
  if (pairs < 2) return null;
  const groups = [...byQuestion.values()];
  const meanOf = (xs: number[]): number => xs.reduce((a, x) => a + x, 0) / xs.length;
  // Within: pooled variance of repeats around their question's mean.
  let ss = 0;
  let df = 0;
  for (const g of groups) {
    if (g.length < 2) continue;
    const m = meanOf(g);
    ss += g.reduce((a, x) => a + (x - m) ** 2, 0);
    df += g.length - 1;
  }
  const within = df > 0 ? ss / df : 0;
  const means = groups.map(meanOf);
  const grand = meanOf(means);
  const meanRepeats = pairs / groups.length;
  const between = means.length > 1 ? Math.max(0, means.reduce((a, x) => a + (x - grand) ** 2, 0) / (means.length - 1) - within / meanRepeats) : 0;
  return { pairs, questions: groups.length, between, within: df > 0 ? within : between };
}

function passNoise(db: Database.Database, runIds: number[]): NoiseEstimate['passRate'] {
  const byQuestion = new Map<string, { n: number; c: number }>();
  for (const runId of runIds) {
    for (const item of itemQuality(db, runId)) {
      if (item.expectPassed === null || item.errored) continue;
      const key = `${item.target}\u0000${item.kind}\u0000${item.suiteItemId}`;
      const q = byQuestion.get(key) ?? { n: 0, c: 0 };
      q.n++;
      q.c += item.expectPassed;
      byQuestion.set(key, q);
    }
  }
  const variances = [...byQuestion.values()].filter((q) => q.n >= 2).map(({ n, c }) => (c * (n - c)) / (n * (n - 1)));
  if (variances.length === 0) return null;
  return { questions: variances.length, variance: variances.reduce((a, x) => a + x, 0) / variances.length };
}

/** One-sided levels of the latency and pass-rate gates among the default gates, latency and credits judged. */
function levels(confidence: number): { latency: number; passRate: number } {
  const l = gateLevels(DEFAULT_THRESHOLDS, confidence, ['latency', 'credits']);
  return { latency: l.get('latency regression')!, passRate: l.get('pass-rate')! };
}

/** Questions needed at R repeats to catch a relative latency increase `delta` beyond `threshold` 80% of the time. */
export function questionsForLatency(noise: NonNullable<NoiseEstimate['latency']>, repeats: number, delta: number, threshold: number, confidence: number): number | null {
  const gap = Math.log(1 + delta) - Math.log(1 + threshold);
  if (gap <= 0) return null;
  const z = normalQuantile(1 - levels(confidence).latency) + normalQuantile(0.8);
  const perQuestion = (Math.PI / 2) * (noise.between + noise.within / repeats);
  return Math.max(2, Math.ceil((z * z * perQuestion) / (gap * gap)));
}

/** Questions needed at R repeats to catch a pass-rate drop of `delta` (a fraction) 80% of the time. */
export function questionsForPassRate(noise: NonNullable<NoiseEstimate['passRate']>, repeats: number, delta: number, confidence: number): number {
  const alpha = levels(confidence).passRate;
  const z = normalQuantile(1 - alpha) + normalQuantile(0.8);
  // n d^2 = z^2 (2 v + d), and at least the fewest changed items that can be significant at all (0.5^m < alpha).
  const fewest = Math.ceil(Math.log(alpha) / Math.log(0.5) + 1e-9);
  const items = Math.max((z * z * (2 * noise.variance + delta)) / (delta * delta), fewest / delta);
  return Math.max(2, Math.ceil(items / repeats));
}

/** The smallest latency increase (relative) and pass-rate drop a suite of Q x R would catch 80% of the time. */
export function detectableAt(noise: NoiseEstimate, questions: number, repeats: number, threshold: number, confidence: number): { latency: number | null; passRate: number | null } {
  const { latency: ll, passRate: lp } = levels(confidence);
  const zl = normalQuantile(1 - ll) + normalQuantile(0.8);
  const zp = normalQuantile(1 - lp) + normalQuantile(0.8);
  const n = questions * repeats;
  const latency = noise.latency ? (1 + threshold) * Math.exp(zl * Math.sqrt(((Math.PI / 2) * (noise.latency.between + noise.latency.within / repeats)) / questions)) - 1 : null;
  const fewest = Math.ceil(Math.log(lp) / Math.log(0.5) + 1e-9) / n;
  const passRate = noise.passRate ? Math.max(drop80(n, 2 * n * noise.passRate.variance, 1, zp, 0), fewest) : null;
  return { latency, passRate };
}
