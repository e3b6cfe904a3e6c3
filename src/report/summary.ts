import { ErrorCodeSchema } from '../model/conversation.js';
import { failureClass, type VerdictOutcome } from '../model/verdict.js';
import type { ItemVerdictRow, SearchRow, TurnMetricRow } from '../store/queries.js';
import type { Column } from './csv.js';
import { type GroupKey, Grouping, MetricColumns } from './grouping.js';
import { RunningSum, round } from '../stats/percentiles.js';

// summary.csv (questions) and search-summary.csv (searches): one row per target and per target and tag.

export const ERROR_CODES = ErrorCodeSchema.options;
/** Final turn states; `processing` and `sending` count as in progress. */
export const TURN_STATES = ['completed', 'error', 'canceled', 'timeout', 'client_error'] as const;
export const FAILED_STATES: ReadonlySet<string> = new Set(['error', 'canceled', 'timeout', 'client_error']);
export const SEARCH_VERDICTS = ['complete', 'limit_hit', 'truncated', 'error', 'http_error'] as const;

const PS = [50, 90, 99] as const;

export interface ItemCounts {
  items: number;
  done: number;
  running: number;
  pending: number;
  skipped: number;
  /** Finished items that ended well: a question `completed`, a search `complete` or `limit_hit`. */
  itemsCompleted: number;
  /** Finished items that ended in a failure the suite did not expect, and those it expected (itemFailure). */
  itemErrors: number;
  itemExpectedErrors: number;
  expectItems: number;
  expectPassed: number;
  /** Of the items with checks, those that did not end in an error (which counts once, in itemErrors), and of them those that passed: compare's pass rate and the history's. */
  answeredItems: number;
  answeredPassed: number;
}

export const itemCounts = (): ItemCounts => ({ items: 0, done: 0, running: 0, pending: 0, skipped: 0, itemsCompleted: 0, itemErrors: 0, itemExpectedErrors: 0, expectItems: 0, expectPassed: 0, answeredItems: 0, answeredPassed: 0 });

/**
 * Whether an item is an error, an error the suite expected (all its checks held), or neither: failureClass,
 * the definition the progress line and the run summary use, read from a recorded item.
 */
export function itemFailure(item: Pick<ItemVerdictRow, 'status' | 'outcome' | 'expectPassed'>): 'error' | 'expected' | undefined {
  // Whether its checks all held decides; their number does not.
  return failureClass((item.outcome ?? item.status) as VerdictOutcome, {
    passed: item.expectPassed === 1 ? 1 : 0,
    failed: item.expectPassed === 0 ? 1 : 0,
  });
}

/** The one way every report counts an item: by status, by how it ended, and by its checks. */
export function countItem(c: ItemCounts, item: Pick<ItemVerdictRow, 'status' | 'outcome' | 'expectPassed'>): void {
  c.items++;
  if (item.status === 'done') c.done++;
  else if (item.status === 'running') c.running++;
  else if (item.status === 'pending') c.pending++;
  else c.skipped++;
  if (item.outcome === 'completed' || item.outcome === 'complete' || item.outcome === 'limit_hit') c.itemsCompleted++;
  const failure = item.status === 'done' ? itemFailure(item) : undefined;
  if (failure === 'error') c.itemErrors++;
  else if (failure === 'expected') c.itemExpectedErrors++;
  if (item.expectPassed !== null) {
    c.expectItems++;
    c.expectPassed += item.expectPassed;
    if (failure !== 'error') {
      c.answeredItems++;
      c.answeredPassed += item.expectPassed;
    }
  }
}

type P3 = { p50: number | null; p90: number | null; p99: number | null };
const p3 = (values: Array<number | null> | undefined): P3 => ({ p50: values?.[0] ?? null, p90: values?.[1] ?? null, p99: values?.[2] ?? null });
const rate = (passed: number, total: number): number | null => (total === 0 ? null : passed / total);

export interface QuestionSummaryRow extends GroupKey, ItemCounts {
  runId: number;
  questions: number;
  states: Record<(typeof TURN_STATES)[number], number>;
  inProgress: number;
  failed: number;
  errors: Record<string, number>;
  wallMs: P3;
  serverMs: P3;
  /** `count`: turns that reported the value (the versioned API reports none). */
  tokens: { count: number; sum: number | null; mean: number | null; p90: number | null };
  /** Input tokens served from the prompt cache (`count`: turns that reported them). */
  cachedTokens: { count: number; sum: number | null; mean: number | null };
  credits: { count: number; sum: number | null; mean: number | null; p90: number | null };
  toolCalls: { sum: number | null; mean: number | null };
  /** Failed turns that reported credits (the legacy API) and those credits: failures that were billed. */
  billedFailures: { turns: number; credits: number | null };
  expectPassRate: number | null;
}

interface QuestionCounters {
  items: ItemCounts;
  questions: number;
  states: Record<string, number>;
  inProgress: number;
  errors: Record<string, number>;
  tokens: RunningSum;
  cachedTokens: RunningSum;
  credits: RunningSum;
  toolCalls: RunningSum;
  billedTurns: number;
  billedCredits: RunningSum;
}

/** Accumulates summary.csv: feed every turn (`addTurn`) and every question item (`addItem`), then `rows()`. */
export class QuestionSummary {
  private readonly grouping = new Grouping();
  private readonly counters: QuestionCounters[] = [];
  /** wall, server, tokens, credits */
  private readonly columns: MetricColumns;

  constructor(
    private readonly runId: number,
    private readonly targetOrder: readonly string[],
    expectedTurns = 0,
  ) {
    this.columns = new MetricColumns(4, expectedTurns);
    // Every target of the run has a row, even one with nothing recorded yet.
    for (const target of targetOrder) this.counter(this.grouping.group({ scope: 'target', target, tag: '' }));
  }

  addTurn(t: TurnMetricRow): void {
    const combo = this.grouping.combo(t.target, t.tagsJson);
    this.columns.push(combo, [t.wallMs, t.serverMs, t.totalTokens, t.credits]);
    for (const g of this.grouping.comboGroups[combo]!) {
      const c = this.counter(g);
      c.questions++;
      if (t.state in c.states) c.states[t.state]!++;
      else c.inProgress++;
      if (t.errorCode !== null) c.errors[t.errorCode] = (c.errors[t.errorCode] ?? 0) + 1;
      c.tokens.add(t.totalTokens);
      c.cachedTokens.add(t.cachedTokens);
      c.credits.add(t.credits);
      c.toolCalls.add(t.toolCalls);
      if (FAILED_STATES.has(t.state) && t.credits !== null) {
        if (t.credits > 0) c.billedTurns++;
        c.billedCredits.add(t.credits);
      }
    }
  }

  addItem(item: Pick<ItemVerdictRow, 'kind' | 'target' | 'tagsJson' | 'status' | 'outcome' | 'expectPassed'>): void {
    if (item.kind !== 'question') return;
    const combo = this.grouping.combo(item.target, item.tagsJson);
    for (const g of this.grouping.comboGroups[combo]!) countItem(this.counter(g).items, item);
  }

  rows(): QuestionSummaryRow[] {
    const pct = this.columns.percentiles(this.grouping, [...PS]);
    return this.grouping.ordered(this.targetOrder).map((g) => {
      const c = this.counter(g);
      const [wall, server, tokens, credits] = pct[g]!;
      const states = Object.fromEntries(TURN_STATES.map((s) => [s, c.states[s] ?? 0])) as QuestionSummaryRow['states'];
      return {
        runId: this.runId,
        ...this.grouping.groups[g]!,
        ...c.items,
        questions: c.questions,
        states,
        inProgress: c.inProgress,
        failed: TURN_STATES.filter((s) => FAILED_STATES.has(s)).reduce((n, s) => n + states[s], 0),
        errors: Object.fromEntries(ERROR_CODES.map((code) => [code, c.errors[code] ?? 0])),
        wallMs: p3(wall),
        serverMs: p3(server),
        tokens: { count: c.tokens.count, sum: c.tokens.sum, mean: c.tokens.mean, p90: tokens?.[1] ?? null },
        cachedTokens: { count: c.cachedTokens.count, sum: c.cachedTokens.sum, mean: c.cachedTokens.mean },
        credits: { count: c.credits.count, sum: c.credits.sum, mean: c.credits.mean, p90: credits?.[1] ?? null },
        toolCalls: { sum: c.toolCalls.sum, mean: c.toolCalls.mean },
        billedFailures: { turns: c.billedTurns, credits: c.billedCredits.sum },
        expectPassRate: rate(c.items.expectPassed, c.items.expectItems),
      };
    });
  }

  private counter(g: number): QuestionCounters {
    return (this.counters[g] ??= {
      items: itemCounts(),
      questions: 0,
      states: Object.fromEntries(TURN_STATES.map((s) => [s, 0])),
      inProgress: 0,
      errors: {},
      tokens: new RunningSum(),
      cachedTokens: new RunningSum(),
      credits: new RunningSum(),
      toolCalls: new RunningSum(),
      billedTurns: 0,
      billedCredits: new RunningSum(),
    });
  }
}

type Q = QuestionSummaryRow;
const itemColumns = <R extends ItemCounts & GroupKey & { runId: number }>(): Array<Column<R>> => [
  { name: 'run_id', value: (r) => r.runId },
  { name: 'scope', value: (r) => r.scope },
  { name: 'target', value: (r) => r.target },
  { name: 'tag', value: (r) => r.tag },
  { name: 'items', value: (r) => r.items },
  { name: 'items_done', value: (r) => r.done },
  { name: 'items_running', value: (r) => r.running },
  { name: 'items_pending', value: (r) => r.pending },
  { name: 'items_skipped', value: (r) => r.skipped },
];
const expectColumns = <R extends ItemCounts & { expectPassRate: number | null }>(): Array<Column<R>> => [
  { name: 'expect_items', value: (r) => r.expectItems },
  { name: 'expect_passed', value: (r) => r.expectPassed },
  { name: 'expect_pass_rate', value: (r) => r.expectPassRate },
];

/** summary.csv columns, stable. */
export const SUMMARY_COLUMNS: ReadonlyArray<Column<Q>> = [
  ...itemColumns<Q>(),
  { name: 'questions', value: (r) => r.questions },
  ...TURN_STATES.map((s): Column<Q> => ({ name: s, value: (r) => r.states[s] })),
  { name: 'in_progress', value: (r) => r.inProgress },
  { name: 'failed', value: (r) => r.failed },
  ...ERROR_CODES.map((code): Column<Q> => ({ name: `errors_${code.toLowerCase()}`, value: (r) => r.errors[code] ?? 0 })),
  ...(['p50', 'p90', 'p99'] as const).map((p): Column<Q> => ({ name: `wall_ms_${p}`, value: (r) => r.wallMs[p] })),
  ...(['p50', 'p90', 'p99'] as const).map((p): Column<Q> => ({ name: `server_ms_${p}`, value: (r) => r.serverMs[p] })),
  { name: 'tokens_sum', value: (r) => r.tokens.sum },
  { name: 'tokens_mean', value: (r) => r.tokens.mean },
  { name: 'tokens_p90', value: (r) => r.tokens.p90 },
  { name: 'credits_sum', value: (r) => r.credits.sum },
  { name: 'credits_mean', value: (r) => r.credits.mean },
  { name: 'credits_p90', value: (r) => r.credits.p90 },
  { name: 'tool_calls_sum', value: (r) => r.toolCalls.sum },
  { name: 'tool_calls_mean', value: (r) => r.toolCalls.mean },
  { name: 'billed_failures', value: (r) => r.billedFailures.turns },
  { name: 'billed_failure_credits', value: (r) => r.billedFailures.credits },
  ...expectColumns<Q>(),
];

// ---- searches ----

export interface SearchSummaryRow extends GroupKey, ItemCounts {
  runId: number;
  searches: number;
  verdicts: Record<(typeof SEARCH_VERDICTS)[number], number>;
  exhaustive: number;
  matches: { sum: number | null; mean: number | null };
  wallMs: P3;
  durationMs: P3;
  firstMatchMs: P3;
  expectPassRate: number | null;
}

interface SearchCounters {
  items: ItemCounts;
  searches: number;
  verdicts: Record<string, number>;
  exhaustive: number;
  matches: RunningSum;
}

/** The count a search is judged by: the server's match count when it gave one, else what dsbench counted. */
export function searchCount(s: Pick<SearchRow, 'matchCount' | 'counted'>): number {
  return s.matchCount ?? s.counted;
}

/** Accumulates search-summary.csv: feed every search and every search item, then `rows()`. */
export class SearchSummary {
  private readonly grouping = new Grouping();
  private readonly counters: SearchCounters[] = [];
  /** wall, duration, time to first match */
  private readonly columns: MetricColumns;

  constructor(
    private readonly runId: number,
    private readonly targetOrder: readonly string[],
    expectedSearches = 0,
  ) {
    this.columns = new MetricColumns(3, expectedSearches);
    for (const target of targetOrder) this.counter(this.grouping.group({ scope: 'target', target, tag: '' }));
  }

  addSearch(s: SearchRow): void {
    const combo = this.grouping.combo(s.target, JSON.stringify(s.tags));
    // Measured here with performance.now: whole milliseconds, as in searches.csv.
    this.columns.push(combo, [round(s.wallMs, 0), s.durationMs, round(s.timeToFirstMatchMs, 0)]);
    for (const g of this.grouping.comboGroups[combo]!) {
      const c = this.counter(g);
      c.searches++;
      c.verdicts[s.verdict] = (c.verdicts[s.verdict] ?? 0) + 1;
      if (s.exhaustive === true) c.exhaustive++;
      c.matches.add(searchCount(s));
    }
  }

  addItem(item: ItemVerdictRow): void {
    if (item.kind !== 'search') return;
    const combo = this.grouping.combo(item.target, JSON.stringify(JSON.parse(item.tagsJson)));
    for (const g of this.grouping.comboGroups[combo]!) countItem(this.counter(g).items, item);
  }

  rows(): SearchSummaryRow[] {
    const pct = this.columns.percentiles(this.grouping, [...PS]);
    return this.grouping.ordered(this.targetOrder).map((g) => {
      const c = this.counter(g);
      const [wall, duration, firstMatch] = pct[g]!;
      return {
        runId: this.runId,
        ...this.grouping.groups[g]!,
        ...c.items,
        searches: c.searches,
        verdicts: Object.fromEntries(SEARCH_VERDICTS.map((v) => [v, c.verdicts[v] ?? 0])) as SearchSummaryRow['verdicts'],
        exhaustive: c.exhaustive,
        matches: { sum: c.matches.sum, mean: c.matches.mean },
        wallMs: p3(wall),
        durationMs: p3(duration),
        firstMatchMs: p3(firstMatch),
        expectPassRate: rate(c.items.expectPassed, c.items.expectItems),
      };
    });
  }

  private counter(g: number): SearchCounters {
    return (this.counters[g] ??= { items: itemCounts(), searches: 0, verdicts: {}, exhaustive: 0, matches: new RunningSum() });
  }
}

type S = SearchSummaryRow;
/** search-summary.csv columns, stable. */
export const SEARCH_SUMMARY_COLUMNS: ReadonlyArray<Column<S>> = [
  ...itemColumns<S>(),
  { name: 'searches', value: (r) => r.searches },
  ...SEARCH_VERDICTS.map((v): Column<S> => ({ name: v, value: (r) => r.verdicts[v] })),
  { name: 'exhaustive', value: (r) => r.exhaustive },
  { name: 'matches_sum', value: (r) => r.matches.sum },
  { name: 'matches_mean', value: (r) => r.matches.mean },
  ...(['p50', 'p90', 'p99'] as const).map((p): Column<S> => ({ name: `wall_ms_${p}`, value: (r) => r.wallMs[p] })),
  ...(['p50', 'p90', 'p99'] as const).map((p): Column<S> => ({ name: `duration_ms_${p}`, value: (r) => r.durationMs[p] })),
  ...(['p50', 'p90', 'p99'] as const).map((p): Column<S> => ({ name: `first_match_ms_${p}`, value: (r) => r.firstMatchMs[p] })),
  ...expectColumns<S>(),
];
