import type Database from 'better-sqlite3';

/** What earlier runs recorded of one item of a suite on one instance: each ended attempt's credits and wall time. */
export interface ItemCosts {
  /** Only where the API reported credits (the versioned API reports none). */
  credits: number[];
  wallMs: number[];
}

/** How many of a suite's newest runs the estimates read. */
const HISTORY_RUNS = 20;

/**
 * Credits and wall time of the items of the newest runs of `suite` on the instance at `url` (before run
 * `before`, when given), by `<kind>/<suite item id>`: items that ended, in runs that asked something.
 */
export function itemHistory(db: Database.Database, suite: string, url: string, before?: number): Map<string, ItemCosts> {
  const rows = db
    .prepare(
      `SELECT i.kind || '/' || i.suite_item_id AS id,
        (SELECT sum(t.credits) FROM turns t WHERE t.run_id = i.run_id AND t.item_key = i.key) AS credits,
        (julianday(i.ended_at) - julianday(i.started_at)) * 86400000.0 AS wallMs
      FROM items i JOIN targets tg ON tg.run_id = i.run_id AND tg.name = i.target
      WHERE i.run_id IN (SELECT id FROM runs WHERE suite_name = @suite AND nothing_asked = 0 AND (@before IS NULL OR id < @before) ORDER BY id DESC LIMIT @runs)
        AND tg.url = @url AND i.status = 'done' AND i.outcome <> 'skipped' AND i.started_at IS NOT NULL AND i.ended_at IS NOT NULL`,
    )
    .all({ suite, url, before: before ?? null, runs: HISTORY_RUNS }) as Array<{ id: string; credits: number | null; wallMs: number | null }>;
  const history = new Map<string, ItemCosts>();
  for (const row of rows) {
    let costs = history.get(row.id);
    if (!costs) history.set(row.id, (costs = { credits: [], wallMs: [] }));
    if (row.credits !== null) costs.credits.push(row.credits);
    if (row.wallMs !== null && row.wallMs >= 0) costs.wallMs.push(Math.round(row.wallMs));
  }
  return history;
}

/** The quota the instance at `url` last reported to any run, if any did. */
export interface LastQuota {
  used: number;
  /** Negative: unlimited. */
  limit: number;
  resetTime: string | null;
  at: string;
}

export function lastQuota(db: Database.Database, url: string): LastQuota | undefined {
  return db
    .prepare(
      `SELECT q.total_quota AS used, q.quota_limit AS "limit", q.reset_time AS resetTime, q.at FROM quota_snapshots q
      JOIN targets tg ON tg.run_id = q.run_id AND tg.name = q.target WHERE tg.url = ? ORDER BY q.at DESC LIMIT 1`,
    )
    .get(url) as LastQuota | undefined;
}
