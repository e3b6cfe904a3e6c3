import type Database from 'better-sqlite3';
import { selectPercentiles } from '../stats/percentiles.js';
import { runProductVersions } from '../store/product-versions.js';
import type { NightItemRow, NightItemValues } from '../store/series-queries.js';
import { type NightReader, type RunSink, UNFINISHED, passOverRuns, unexpectedError } from './history-pass.js';

// Each metric's nightly series, for the suite, each tag and (on request) each question, per target: what
// change-point detection reads. A night is a run; its value is the night's figure over the scope's items.

export const SERIES_METRICS = ['pass rate', 'error rate', 'latency p50', 'latency p90', 'credits', 'tokens'] as const;
export type SeriesMetric = (typeof SERIES_METRICS)[number];

export interface Night {
  runId: number;
  startedAt: string;
  /** Each target's product version that night (by target name); null or absent where it was not recorded. */
  productVersions: Readonly<Record<string, string | null>>;
}

export interface SeriesScope {
  target: string;
  kind: 'suite' | 'tag' | 'question';
  /** The tag or question id; null for the suite. */
  name: string | null;
}

export interface MetricSeries {
  scope: SeriesScope;
  metric: SeriesMetric;
  /** One per night, oldest first; null when the night has no such figure for the scope. */
  values: Array<number | null>;
}

/** The history's runs as nights, each with its targets' product versions as recorded at the run's start. */
export function historyNights(db: Database.Database, runs: ReadonlyArray<{ id: number; startedAt: string }>): Night[] {
  return runs.map((r) => ({ runId: r.id, startedAt: r.startedAt, productVersions: Object.fromEntries(runProductVersions(db, r.id).map((v) => [v.target, v.version])) }));
}

/** One night's items of one scope, summed. */
export class ScopeTally {
  done = 0;
  errored = 0;
  checked = 0;
  passed = 0;
  readonly ms: number[] = [];
  credits = 0;
  creditItems = 0;
  tokens = 0;
  tokenItems = 0;

  add(row: NightItemRow): void {
    this.addValues([row.target, row.kind, row.suiteItemId, row.tagsJson, row.errored, row.passed, row.ms, row.credits, row.tokens]);
  }

  addValues(row: NightItemValues): void {
    const [, kind, , , errored, passed, ms, credits, tokens] = row;
    this.done++;
    this.errored += errored;
    // An item that erred counts once, in the error rate, as compare's pass rate has it: a surge of errors
    // is no change of the answers' pass rate.
    if (passed !== null && errored === 0) {
      this.checked++;
      this.passed += passed;
    }
    if (kind !== 'question') return;
    if (ms !== null && ms > 0) this.ms.push(ms);
    if (credits !== null) {
      this.credits += credits;
      this.creditItems++;
    }
    if (tokens !== null) {
      this.tokens += tokens;
      this.tokenItems++;
    }
  }

  /** The night's figures: rates over items, latency percentiles over questions, credits and tokens per question. */
  values(): Record<SeriesMetric, number | null> {
    const [p50, p90] = selectPercentiles(Float64Array.from(this.ms), [50, 90]);
    return {
      'pass rate': this.checked > 0 ? this.passed / this.checked : null,
      'error rate': this.done > 0 ? this.errored / this.done : null,
      'latency p50': p50 ?? null,
      'latency p90': p90 ?? null,
      credits: this.creditItems > 0 ? this.credits / this.creditItems : null,
      tokens: this.tokenItems > 0 ? this.tokens / this.tokenItems : null,
    };
  }
}

/** The series of every scope and metric over `nights` (oldest first), read on their own. */
export function collectSeries(db: Database.Database, nights: readonly Night[], options: { questions: boolean }): MetricSeries[] {
  const reader = new SeriesReader(options);
  passOverRuns(db, nights.map((n) => n.runId), (night) => [reader.sink(night)]);
  return reader.series(nights.length);
}

/** The series, made from the history's pass over its runs (`sink` for each night), then `series`. */
export class SeriesReader implements NightReader {
  private readonly scopes = new Map<string, { scope: SeriesScope; tallies: Array<ScopeTally | undefined> }>();
  // Items share a few targets and tag lists: the suite's and tags' scopes of each pair are looked up once.
  private readonly shared = new Map<string, Array<{ scope: SeriesScope; tallies: Array<ScopeTally | undefined> }>>();
  private last: { target: string; tagsJson: string; scopes: Array<{ scope: SeriesScope; tallies: Array<ScopeTally | undefined> }> } | undefined;

  constructor(private readonly options: { questions: boolean }) {}

  sink(night: number): RunSink {
    return {
      item: ({ traits: t, firstMs, credits, tokens }) => {
        if (UNFINISHED.has(t.status)) return;
        const errored = unexpectedError(t) ? 1 : 0;
        this.add(night, [t.target, t.kind, t.suiteItemId, t.tagsJson, errored, t.expectPassed, firstMs, credits, tokens]);
      },
    };
  }

  private add(night: number, row: NightItemValues): void {
    const [target, kind, suiteItemId, tagsJson] = row;
    for (const e of this.sharedOf(target, tagsJson)) (e.tallies[night] ??= new ScopeTally()).addValues(row);
    if (this.options.questions) (this.entry({ target, kind: 'question', name: `${kind === 'search' ? 'search ' : ''}${suiteItemId}` }).tallies[night] ??= new ScopeTally()).addValues(row);
  }

  private entry(scope: SeriesScope) {
    const key = `${scope.target}\u0000${scope.kind}\u0000${scope.name ?? ''}`;
    let found = this.scopes.get(key);
    if (!found) this.scopes.set(key, (found = { scope, tallies: [] }));
    return found;
  }

  private sharedOf(target: string, tagsJson: string) {
    // An item's repeats come one after another: most items have the scopes of the one before.
    if (this.last?.target === target && this.last.tagsJson === tagsJson) return this.last.scopes;
    const key = `${target}\u0000${tagsJson}`;
    let found = this.shared.get(key);
    if (!found) {
      const tags = JSON.parse(tagsJson) as string[];
      this.shared.set(key, (found = [this.entry({ target, kind: 'suite', name: null }), ...tags.map((tag) => this.entry({ target, kind: 'tag', name: tag }))]));
    }
    this.last = { target, tagsJson, scopes: found };
    return found;
  }

  /** Every scope's series over the `nights` nights read. */
  series(nights: number): MetricSeries[] {
    const order = { suite: 0, tag: 1, question: 2 };
    const indices = Array.from({ length: nights }, (_, i) => i);
    // A tag on every item of a target (every night) has the suite's series: searched once, as the suite.
    const everywhere = (tallies: ReadonlyArray<ScopeTally | undefined>, target: string) =>
      indices.every((i) => (tallies[i]?.done ?? 0) === (this.scopes.get(`${target}\u0000suite\u0000`)?.tallies[i]?.done ?? 0));
    const sorted = [...this.scopes.values()].filter(({ scope, tallies }) => scope.kind !== 'tag' || !everywhere(tallies, scope.target)).sort(
      (a, b) => a.scope.target.localeCompare(b.scope.target) || order[a.scope.kind] - order[b.scope.kind] || (a.scope.name ?? '').localeCompare(b.scope.name ?? ''),
    );
    return sorted.flatMap(({ scope, tallies }) => {
      const perNight = indices.map((i) => tallies[i]?.values() ?? null);
      return SERIES_METRICS.map((metric) => ({ scope, metric, values: perNight.map((v) => (v === null ? null : v[metric])) }));
    });
  }
}
