import type Database from 'better-sqlite3';
import type { ItemKind, ItemStatus } from '../model/item.js';

// What `report --history N` reads of each run, in one pass: every item with each of its turns (an item
// without turns once), in plan order, its turns in order, with its checks in short. The history's summary,
// its question grid and (with --detect) the nightly series are all made from these rows. Rows come as
// arrays (no object per row): 90 nights of thousands of items are hundreds of thousands of rows.

/**
 * One row of the pass: its item, then one of its turns' values (all null for an item without turns). What
 * defines the item and how it ended come as one JSON text (ItemTraitsValues): the same text for the repeats of
 * a question that ended alike, night after night, so that a reader parses each once (a value handed from
 * SQLite costs about as much whatever its type: one text is cheaper than eight values).
 */
export type RunPassValues = [
  position: number,
  traitsJson: string,
  turn: number | null,
  state: string | null,
  wallMs: number | null,
  serverMs: number | null,
  totalTokens: number | null,
  credits: number | null,
];

/** Column indices of RunPassValues. */
export const PASS = { position: 0, traitsJson: 1, turn: 2, state: 3, wallMs: 4, serverMs: 5, totalTokens: 6, credits: 7 } as const;

/** The values of RunPassValues' traitsJson, in order. */
export type ItemTraitsValues = [
  kind: ItemKind,
  target: string,
  suiteItemId: string,
  tagsJson: string,
  definitionHash: string | null,
  status: ItemStatus,
  outcome: string | null,
  /** 1 when all its checks passed, 0 when one failed, null without checks. */
  expectPassed: 0 | 1 | null,
];

export function runPassStatement(db: Database.Database): Database.Statement<[number]> {
  return db
    .prepare<[number]>(
      `SELECT i.position,
        json_array(i.kind, i.target, i.suite_item_id, i.tags_json, i.definition_hash, i.status, i.outcome,
          (SELECT min(e.passed) FROM expectations e WHERE e.run_id = i.run_id AND e.item_key = i.key)),
        t.turn, t.state, t.wall_ms, t.server_ms, t.total_tokens, t.credits
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
  /** 1 when it ended in an error (a failed state) the suite did not expect, else 0. */
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
