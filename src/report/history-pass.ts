import type Database from 'better-sqlite3';
import type { ItemVerdictRow, TurnMetricRow } from '../store/queries.js';
import { PASS, iterateRunPass, runPassStatement, type RunPassValues } from '../store/series-queries.js';

// One read of each run of a history, told to every reader that wants it (the runs' summaries, the question
// grid, the nightly series): each used to read the same items, turns and checks again.

/** An item of the pass, told after its turns. */
export interface PassItem extends Pick<ItemVerdictRow, 'kind' | 'target' | 'suiteItemId' | 'repeat' | 'tagsJson' | 'status' | 'outcome' | 'expectPassed'> {
  /** Its place in the run's plan: items come in plan order. */
  position: number;
  definitionHash: string | null;
  /** Time of its first turn when that turn completed: server time, wall time where the server gave none. */
  firstMs: number | null;
  /** Summed over its turns as SQL's sum() sums them; null when no turn reported them. */
  credits: number | null;
  tokens: number | null;
}

/** What reads one run of the pass. */
export interface RunSink {
  /** Each turn, before its item is told; set only by a sink that wants turns (they cost an object each). */
  turn?(t: TurnMetricRow): void;
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
/** Items the grid and the series leave out: not finished, or never sent. */
export const UNFINISHED: ReadonlySet<string> = new Set(['pending', 'running', 'skipped']);

/** Each run once, in order, told to the sinks `sinksOf` gives for it (a run without sinks is not read). */
export function passOverRuns(db: Database.Database, runIds: readonly number[], sinksOf: (night: number, runId: number) => RunSink[]): void {
  const statement = runPassStatement(db);
  runIds.forEach((runId, night) => {
    const sinks = sinksOf(night, runId);
    if (sinks.length > 0) readRun(iterateRunPass(statement, runId), sinks);
  });
}

function readRun(rows: Iterable<RunPassValues>, sinks: readonly RunSink[]): void {
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
      item = passItem(row);
      credits.reset();
      tokens.reset();
    }
    const turn = row[PASS.turn];
    if (turn === null) continue;
    credits.add(row[PASS.credits]);
    tokens.add(row[PASS.totalTokens]);
    if (turn === 0 && row[PASS.state] === 'completed') item.firstMs = row[PASS.serverMs] ?? row[PASS.wallMs];
    if (turnSinks.length > 0) {
      const t = turnRow(row, turn);
      for (const s of turnSinks) s.turn!(t);
    }
  }
  flush();
  for (const s of sinks) s.end?.();
}

function passItem(row: RunPassValues): PassItem {
  return {
    position: row[PASS.position],
    kind: row[PASS.kind],
    target: row[PASS.target],
    suiteItemId: row[PASS.suiteItemId],
    repeat: row[PASS.repeat],
    tagsJson: row[PASS.tagsJson],
    status: row[PASS.status],
    outcome: row[PASS.outcome],
    definitionHash: row[PASS.definitionHash],
    expectPassed: row[PASS.expectPassed],
    firstMs: null,
    credits: null,
    tokens: null,
  };
}

function turnRow(row: RunPassValues, turn: number): TurnMetricRow {
  return {
    target: row[PASS.target],
    suiteItemId: row[PASS.suiteItemId],
    repeat: row[PASS.repeat],
    tagsJson: row[PASS.tagsJson],
    turn,
    state: row[PASS.state]!,
    errorCode: row[PASS.errorCode],
    wallMs: row[PASS.wallMs],
    serverMs: row[PASS.serverMs],
    totalTokens: row[PASS.totalTokens],
    cachedTokens: row[PASS.cachedTokens],
    credits: row[PASS.credits],
    toolCalls: row[PASS.toolCalls],
  };
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
