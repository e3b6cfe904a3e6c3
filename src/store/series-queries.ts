import type Database from 'better-sqlite3';

// What the nightly series of `report --history N --detect` read: one row per finished item of a run, with
// its checks' verdict, whether it ended in an error, its first turn's time and its turns' credits and tokens.

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

export function iterateNightItems(db: Database.Database, runId: number): IterableIterator<NightItemRow> {
  return db
    .prepare(
      `SELECT i.target, i.kind, i.suite_item_id AS suiteItemId, i.tags_json AS tagsJson,
        i.outcome IN ('error', 'canceled', 'timeout', 'client_error', 'http_error', 'truncated') AS errored,
        (SELECT min(e.passed) FROM expectations e WHERE e.run_id = i.run_id AND e.item_key = i.key) AS passed,
        (SELECT coalesce(t.server_ms, t.wall_ms) FROM turns t WHERE t.run_id = i.run_id AND t.item_key = i.key AND t.turn = 0 AND t.state = 'completed') AS ms,
        t.credits, t.tokens
      FROM items i LEFT JOIN (SELECT item_key, sum(credits) AS credits, sum(total_tokens) AS tokens FROM turns WHERE run_id = @run GROUP BY item_key) t ON t.item_key = i.key
      WHERE i.run_id = @run AND i.status NOT IN ('pending', 'running', 'skipped')`,
    )
    .iterate({ run: runId }) as IterableIterator<NightItemRow>;
}
