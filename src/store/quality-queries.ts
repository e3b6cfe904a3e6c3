import type Database from 'better-sqlite3';

// What the quality figures of a run (pass rate, pass^k, judge score, citation validity, flaky questions)
// read: one row per item, with its checks' verdict and its grades and citations summed.

export interface ItemQualityRow {
  target: string;
  kind: 'question' | 'search';
  suiteItemId: string;
  repeat: number;
  tagsJson: string;
  /** 1 when every check passed, 0 when one failed, null without checks. */
  expectPassed: 0 | 1 | null;
  /** Sum and count of the judge's scores of the item's graded turns. */
  scoreSum: number;
  scored: number;
  citationsValid: number;
  citationsChecked: number;
  /** 1 when the item ended in an error (its checks then fail), else 0. */
  errored: 0 | 1;
}

const ITEM_QUALITY_SQL = `SELECT i.target, i.kind, i.suite_item_id AS suiteItemId, i.repeat, i.tags_json AS tagsJson,
        (SELECT min(e.passed) FROM expectations e WHERE e.run_id = i.run_id AND e.item_key = i.key) AS expectPassed,
        coalesce((SELECT sum(g.score) FROM grades g WHERE g.run_id = i.run_id AND g.item_key = i.key AND g.status = 'graded'), 0) AS scoreSum,
        (SELECT count(*) FROM grades g WHERE g.run_id = i.run_id AND g.item_key = i.key AND g.status = 'graded') AS scored,
        (SELECT count(*) FROM citations c WHERE c.run_id = i.run_id AND c.item_key = i.key AND c.status = 'valid') AS citationsValid,
        (SELECT count(*) FROM citations c WHERE c.run_id = i.run_id AND c.item_key = i.key AND c.status IN ('valid', 'invalid')) AS citationsChecked,
        (i.outcome IN ('error', 'canceled', 'timeout', 'client_error', 'http_error', 'truncated')) AS errored
      FROM items i WHERE i.run_id = ? AND i.status NOT IN ('pending', 'running', 'skipped')
      ORDER BY i.target, i.kind, i.suite_item_id, i.repeat`;

export function itemQuality(db: Database.Database, runId: number): ItemQualityRow[] {
  return db.prepare(ITEM_QUALITY_SQL).all(runId) as ItemQualityRow[];
}

/** The same rows one at a time: a run's quality is summed as they come, none of them held. */
export function iterateItemQuality(db: Database.Database, runId: number): IterableIterator<ItemQualityRow> {
  return db.prepare(ITEM_QUALITY_SQL).iterate(runId) as IterableIterator<ItemQualityRow>;
}

export interface ItemLatencyRow {
  target: string;
  suiteItemId: string;
  repeat: number;
  /** Server time of the item's first turn (wall time where the server gave none); completed turns only. */
  ms: number;
}

export function itemLatencies(db: Database.Database, runId: number): ItemLatencyRow[] {
  return db
    .prepare(
      `SELECT i.target, i.suite_item_id AS suiteItemId, i.repeat, coalesce(t.server_ms, t.wall_ms) AS ms
       FROM items i JOIN turns t ON t.run_id = i.run_id AND t.item_key = i.key AND t.turn = 0
       WHERE i.run_id = ? AND i.kind = 'question' AND t.state = 'completed' AND coalesce(t.server_ms, t.wall_ms) > 0`,
    )
    .all(runId) as ItemLatencyRow[];
}
