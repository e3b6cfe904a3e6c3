import type Database from 'better-sqlite3';

// What the nightly series of `report --history N --detect` read: one row per finished item of a run, with
// its checks' verdict, whether it ended in an error, its first turn's time and its turns' credits and tokens.
// Rows come as arrays (no object per row) from point lookups on each table's key: the series of 90 nights
// of thousands of items read hundreds of thousands of them.

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

/** A NightItemRow's values in its fields' order, as the query returns them. */
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

export function nightItemsStatement(db: Database.Database): Database.Statement<[number]> {
  return db
    .prepare<[number]>(
      `SELECT i.target, i.kind, i.suite_item_id, i.tags_json,
        i.outcome IN ('error', 'canceled', 'timeout', 'client_error', 'http_error', 'truncated'),
        (SELECT min(e.passed) FROM expectations e WHERE e.run_id = i.run_id AND e.item_key = i.key),
        CASE WHEN t0.state = 'completed' THEN coalesce(t0.server_ms, t0.wall_ms) END,
        (SELECT sum(t.credits) FROM turns t WHERE t.run_id = i.run_id AND t.item_key = i.key),
        (SELECT sum(t.total_tokens) FROM turns t WHERE t.run_id = i.run_id AND t.item_key = i.key)
      FROM items i LEFT JOIN turns t0 ON t0.run_id = i.run_id AND t0.item_key = i.key AND t0.turn = 0
      WHERE i.run_id = ? AND i.status NOT IN ('pending', 'running', 'skipped')
      ORDER BY i.position`,
    )
    .raw(true);
}

export function iterateNightItems(statement: Database.Statement<[number]>, runId: number): IterableIterator<NightItemValues> {
  return statement.iterate(runId) as IterableIterator<NightItemValues>;
}
