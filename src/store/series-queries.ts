import type Database from 'better-sqlite3';
import type { ItemKind, ItemStatus } from '../model/item.js';

// What `report --history N` reads of each run, in one pass: every item with each of its turns (an item
// without turns once), in plan order, its turns in order, with its checks in short. The history's summary,
// its question grid and (with --detect) the nightly series are all made from these rows. Rows come as
// arrays (no object per row): 90 nights of thousands of items are hundreds of thousands of rows.

/** One row of the pass: an item's columns, then one of its turns' (all null for an item without turns). */
export type RunPassValues = [
  position: number,
  kind: ItemKind,
  target: string,
  suiteItemId: string,
  repeat: number,
  tagsJson: string,
  status: ItemStatus,
  outcome: string | null,
  definitionHash: string | null,
  /** 1 when all its checks passed, 0 when one failed, null without checks. */
  expectPassed: 0 | 1 | null,
  turn: number | null,
  state: string | null,
  errorCode: string | null,
  wallMs: number | null,
  serverMs: number | null,
  totalTokens: number | null,
  cachedTokens: number | null,
  credits: number | null,
  toolCalls: number | null,
];

/** Column indices of RunPassValues. */
export const PASS = {
  position: 0, kind: 1, target: 2, suiteItemId: 3, repeat: 4, tagsJson: 5, status: 6, outcome: 7, definitionHash: 8, expectPassed: 9,
  turn: 10, state: 11, errorCode: 12, wallMs: 13, serverMs: 14, totalTokens: 15, cachedTokens: 16, credits: 17, toolCalls: 18,
} as const;

export function runPassStatement(db: Database.Database): Database.Statement<[number]> {
  return db
    .prepare<[number]>(
      `SELECT i.position, i.kind, i.target, i.suite_item_id, i.repeat, i.tags_json, i.status, i.outcome, i.definition_hash,
        (SELECT min(e.passed) FROM expectations e WHERE e.run_id = i.run_id AND e.item_key = i.key),
        t.turn, t.state, t.error_code, t.wall_ms, t.server_ms, t.total_tokens, t.cached_tokens, t.credits, t.tool_calls
      FROM items i LEFT JOIN turns t ON t.run_id = i.run_id AND t.item_key = i.key
      WHERE i.run_id = ?
      ORDER BY i.position, t.turn`,
    )
    .raw(true);
}

export function iterateRunPass(statement: Database.Statement<[number]>, runId: number): IterableIterator<RunPassValues> {
  return statement.iterate(runId) as IterableIterator<RunPassValues>;
}

/** One finished item as a nightly series counts it. */
export interface NightItemRow {
  target: string;
  kind: 'question' | 'search';
  suiteItemId: string;
  tagsJson: string;
  /** 1 when it ended in an error (a failed state), else 0. */
  errored: 0 | 1;
  /** 1 when every check passed, 0 when one failed, null without checks. */
  passed: 0 | 1 | null;
  /** Server time of its first turn (wall time where the server gave none), when that turn completed. */
  ms: number | null;
  /** Summed over its turns; null when no turn reported them. */
  credits: number | null;
  tokens: number | null;
}

/** A NightItemRow's values in its fields' order. */
export type NightItemValues = [
  target: string,
  kind: NightItemRow['kind'],
  suiteItemId: string,
  tagsJson: string,
  errored: NightItemRow['errored'],
  passed: NightItemRow['passed'],
  ms: number | null,
  credits: number | null,
  tokens: number | null,
];
