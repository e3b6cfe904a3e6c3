import type Database from 'better-sqlite3';
import type { ItemVerdictRow } from '../store/queries.js';
import { itemFailure } from './summary.js';
import { type ItemTraitsValues, PASS, iterateRunPass, runPassStatement, type RunPassValues } from '../store/series-queries.js';

// One read of each run of a history, told to every reader that wants it (the runs' summaries, the question
// grid, the nightly series): each used to read the same items, turns and checks again.

/**
 * What defines an item and how it ended: one frozen object shared by every item alike in the pass (a question's
 * repeats that ended alike, night after night), so its texts are read and parsed once, not per repeat.
 */
export type ItemTraits = Readonly<Pick<ItemVerdictRow, 'kind' | 'target' | 'suiteItemId' | 'tagsJson' | 'status' | 'outcome' | 'expectPassed'> & { definitionHash: string | null }>;

/** An item of the pass, told after its turns. */
export interface PassItem {
  traits: ItemTraits;
  /** Its place in the run's plan: items come in plan order. */
  position: number;
  /** Time of its first turn when that turn completed: server time, wall time where the server gave none. */
  firstMs: number | null;
  /** Summed over its turns as SQL's sum() sums them; null when no turn reported them. */
  credits: number | null;
  tokens: number | null;
}

/** A turn of the pass, told before its item (the figures the history's summaries read). */
export interface PassTurn {
  state: string;
  wallMs: number | null;
  serverMs: number | null;
  credits: number | null;
}

/** What reads one run of the pass. */
export interface RunSink {
  /** Each turn, before its item is told. */
  turn?(item: ItemTraits, t: PassTurn): void;
  item?(item: PassItem): void;
  /** The run was read to its end. */
  end?(): void;
}

/** A reader of the history's nights: a sink for the run at `night` (its index, oldest first), or none. */
export interface NightReader {
  sink(night: number, runId: number): RunSink | undefined;
}

/** Outcomes that count as an error in the grid and the series. */
export const ERRORED_OUTCOMES: ReadonlySet<string> = new Set(['error', 'canceled', 'timeout', 'client_error', 'http_error', 'truncated']);

/** An item the grid and the series count as an error: it ended in one that the suite did not expect (its checks held), as in compare and the runs table. */
export function unexpectedError(item: Pick<ItemVerdictRow, 'status' | 'outcome' | 'expectPassed'>): boolean {
  return item.outcome !== null && ERRORED_OUTCOMES.has(item.outcome) && itemFailure(item) !== 'expected';
}
/** Items the grid and the series leave out: not finished, or never sent. */
export const UNFINISHED: ReadonlySet<string> = new Set(['pending', 'running', 'skipped']);

/** Each run once, in order, told to the sinks `sinksOf` gives for it (a run without sinks is not read). */
export function passOverRuns(db: Database.Database, runIds: readonly number[], sinksOf: (night: number, runId: number) => RunSink[]): void {
  const statement = runPassStatement(db);
  const traits = new TraitsCache();
  runIds.forEach((runId, night) => {
    const sinks = sinksOf(night, runId);
    if (sinks.length > 0) readRun(iterateRunPass(statement, runId), sinks, traits);
  });
}

/** Items' traits by their JSON text: parsed on first sight, then the same object. */
class TraitsCache {
  private readonly byText = new Map<string, ItemTraits>();

  of(text: string): ItemTraits {
    let found = this.byText.get(text);
    if (found === undefined) {
      const [kind, target, suiteItemId, tagsJson, definitionHash, status, outcome, expectPassed] = JSON.parse(text) as ItemTraitsValues;
      found = Object.freeze({ kind, target, suiteItemId, tagsJson, definitionHash, status, outcome, expectPassed });
      this.byText.set(text, found);
    }
    return found;
  }
}

function readRun(rows: Iterable<RunPassValues>, sinks: readonly RunSink[], traits: TraitsCache): void {
  const turnSinks = sinks.filter((s) => s.turn !== undefined);
  const itemSinks = sinks.filter((s) => s.item !== undefined);
  let item: PassItem | undefined;
  const credits = new SqlSum();
  const tokens = new SqlSum();
  const flush = () => {
    if (!item) return;
    item.credits = credits.value;
    item.tokens = tokens.value;
    for (const s of itemSinks) s.item!(item);
  };
  for (const row of rows) {
    if (item?.position !== row[PASS.position]) {
      flush();
      item = { traits: traits.of(row[PASS.traitsJson]), position: row[PASS.position], firstMs: null, credits: null, tokens: null };
      credits.reset();
      tokens.reset();
    }
    const turn = row[PASS.turn];
    if (turn === null) continue;
    const state = row[PASS.state]!;
    credits.add(row[PASS.credits]);
    tokens.add(row[PASS.totalTokens]);
    if (turn === 0 && state === 'completed') item.firstMs = row[PASS.serverMs] ?? row[PASS.wallMs];
    if (turnSinks.length > 0) {
      const t: PassTurn = { state, wallMs: row[PASS.wallMs], serverMs: row[PASS.serverMs], credits: row[PASS.credits] };
      for (const s of turnSinks) s.turn!(item.traits, t);
    }
  }
  flush();
  for (const s of sinks) s.end?.();
}

/**
 * A sum as SQLite's sum() makes it (Kahan-Babuska-Neumaier compensated, null when nothing was added), so
 * that a total summed here is the same double the store's queries give.
 */
export class SqlSum {
  private sum = 0;
  private err = 0;
  private count = 0;

  reset(): void {
    this.sum = 0;
    this.err = 0;
    this.count = 0;
  }

  add(value: number | null): void {
    if (value === null) return;
    this.count++;
    const t = this.sum + value;
    this.err += Math.abs(this.sum) > Math.abs(value) ? this.sum - t + value : value - t + this.sum;
    this.sum = t;
  }

  get value(): number | null {
    if (this.count === 0) return null;
    return Number.isFinite(this.err) ? this.sum + this.err : this.sum;
  }
}
