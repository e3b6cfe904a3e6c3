import type Database from 'better-sqlite3';
import { type ItemQualityRow, iterateItemQuality } from '../store/quality-queries.js';
import { type BootstrapOptions, DEFAULT_BOOTSTRAP } from '../stats/bootstrap.js';
import { QUARANTINE_TAG } from './compare/quarantine.js';
import { NO_RATE, type RateEstimate, clusteredRate } from '../stats/cluster-rate.js';
import { type QuestionConsistency, consistency, defaultK } from '../stats/pass-k.js';
import { plural } from './tables.js';

// A run's answer quality, per target, with intervals that resample questions (a question with all its
// repeats is one cluster): the pass rate, pass@k and pass^k over questions, the judge's mean score, the
// share of checked citations that were valid; and each question's consistency (flaky or stable).
// Quarantined questions (tag `quarantine`) are listed, and left out of every figure.

export interface QuestionQuality extends QuestionConsistency {
  target: string;
  kind: 'question' | 'search';
  id: string;
  quarantined: boolean;
}

export interface TargetQuality {
  target: string;
  /** The k of pass@k and pass^k: the fewest repeats with checks of any question. */
  k: number;
  passRate: RateEstimate;
  passAtK: RateEstimate;
  passHatK: RateEstimate;
  judgeScore: RateEstimate;
  citationValidity: RateEstimate;
  /** Questions whose repeats disagreed in this run. */
  flaky: string[];
  quarantined: string[];
}

export interface RunQuality {
  confidence: number;
  targets: TargetQuality[];
  questions: QuestionQuality[];
}

interface Cluster {
  target: string;
  kind: 'question' | 'search';
  id: string;
  quarantined: boolean;
  checked: number;
  passed: number;
  scoreSum: number;
  scored: number;
  valid: number;
  citations: number;
}

export function runQuality(db: Database.Database, runId: number, bootstrap: BootstrapOptions = DEFAULT_BOOTSTRAP): RunQuality {
  return qualityOf(iterateItemQuality(db, runId), bootstrap);
}

export function qualityOf(items: Iterable<ItemQualityRow>, bootstrap: BootstrapOptions): RunQuality {
  const clusters = new Map<string, Cluster>();
  for (const item of items) {
    const key = `${item.target}\u0000${item.kind}\u0000${item.suiteItemId}`;
    let c = clusters.get(key);
    if (!c) {
      const tags = JSON.parse(item.tagsJson) as string[];
      c = { target: item.target, kind: item.kind, id: item.suiteItemId, quarantined: tags.includes(QUARANTINE_TAG), checked: 0, passed: 0, scoreSum: 0, scored: 0, valid: 0, citations: 0 };
      clusters.set(key, c);
    }
    if (item.expectPassed !== null) {
      c.checked++;
      c.passed += item.expectPassed;
    }
    c.scoreSum += item.scoreSum;
    c.scored += item.scored;
    c.valid += item.citationsValid;
    c.citations += item.citationsChecked;
  }
  const byTarget = new Map<string, Cluster[]>();
  for (const c of clusters.values()) {
    const list = byTarget.get(c.target);
    if (list) list.push(c);
    else byTarget.set(c.target, [c]);
  }
  const questions: QuestionQuality[] = [];
  const targets: TargetQuality[] = [];
  for (const [target, all] of byTarget) {
    const judged = all.filter((c) => !c.quarantined);
    const checked = judged.filter((c) => c.checked > 0);
    const k = defaultK(checked.map((c) => c.checked));
    for (const c of all.filter((c) => c.checked > 0)) questions.push({ target, kind: c.kind, id: c.id, quarantined: c.quarantined, ...consistency(c.checked, c.passed, k) });
    const perQuestion = checked.map((c) => consistency(c.checked, c.passed, k));
    const ones = checked.map(() => 1);
    targets.push({
      target,
      k,
      passRate: clusteredRate(checked.map((c) => c.passed), checked.map((c) => c.checked), bootstrap),
      passAtK: checked.length === 0 ? NO_RATE : clusteredRate(perQuestion.map((q) => q.passAtK ?? 0), ones, bootstrap),
      passHatK: checked.length === 0 ? NO_RATE : clusteredRate(perQuestion.map((q) => q.passHatK ?? 0), ones, bootstrap),
      judgeScore: clusteredRate(judged.map((c) => c.scoreSum), judged.map((c) => c.scored), bootstrap),
      citationValidity: clusteredRate(judged.map((c) => c.valid), judged.map((c) => c.citations), bootstrap),
      flaky: checked.filter((c) => c.passed > 0 && c.passed < c.checked).map((c) => c.id),
      quarantined: all.filter((c) => c.quarantined).map((c) => c.id),
    });
  }
  return { confidence: bootstrap.confidence, targets, questions };
}

/** "80.0% (95% CI 70.1–88.3%)", or "–" with nothing to measure. */
export function formatEstimate(r: RateEstimate, confidence: number, asPercent = true): string {
  if (r.value === null) return '–';
  const f = (x: number | null): string => (x === null ? '?' : asPercent ? `${(x * 100).toFixed(1)}` : x.toFixed(3));
  return `${f(r.value)}${asPercent ? '%' : ''} (${Math.round(confidence * 100)}% CI ${f(r.low)}–${f(r.high)}${asPercent ? '%' : ''})`;
}

/** One line per target: what the run summary and the reports print. */
export function qualityLines(q: RunQuality): string[] {
  return q.targets
    .filter((t) => t.passRate.value !== null || t.judgeScore.value !== null)
    .map((t) => {
      const parts = [`pass rate ${formatEstimate(t.passRate, q.confidence)} over ${plural(t.passRate.clusters, 'question')}`];
      if (t.k > 1 && t.passHatK.value !== null) parts.push(`pass^${t.k} ${formatEstimate(t.passHatK, q.confidence)}`, `pass@${t.k} ${formatEstimate(t.passAtK, q.confidence)}`);
      if (t.judgeScore.value !== null) parts.push(`judge score ${formatEstimate(t.judgeScore, q.confidence, false)}`);
      if (t.citationValidity.value !== null) parts.push(`citation validity ${formatEstimate(t.citationValidity, q.confidence)}`);
      if (t.flaky.length > 0) parts.push(`${t.flaky.length} flaky (${t.flaky.slice(0, 5).join(', ')}${t.flaky.length > 5 ? ', …' : ''})`);
      if (t.quarantined.length > 0) parts.push(`${t.quarantined.length} quarantined, not counted`);
      return `${t.target}: ${parts.join('; ')}`;
    });
}

/** The run summary's block: nothing when no question has checks or grades. */
export function formatQuality(q: RunQuality): string {
  const lines = qualityLines(q);
  return lines.length === 0 ? '' : `Quality (${Math.round(q.confidence * 100)}% intervals over questions; docs/statistics.md):\n${lines.map((l) => `  ${l}\n`).join('')}`;
}
