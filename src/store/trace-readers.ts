import type Database from 'better-sqlite3';
import { type RowOf, decoder, selectList } from './columns.js';
import { TRACES } from './tables.js';

// The traces a run kept (run --trace): for `--trace-fetch`, the reports' links and tests.

export type TraceRow = RowOf<typeof TRACES>;
const readTrace = decoder(TRACES);

/** Every trace the run kept, in the order they were recorded. */
export function runTraces(db: Database.Database, runId: number): TraceRow[] {
  return db.prepare(`SELECT ${selectList(TRACES)} FROM traces WHERE run_id = ? ORDER BY rowid`).all(runId).map(readTrace);
}

/** The traces one item kept: its link first (its create's or its search's), then by turn, as recorded. */
export function itemTraces(db: Database.Database, runId: number, itemKey: string): TraceRow[] {
  return db
    .prepare(`SELECT ${selectList(TRACES)} FROM traces WHERE run_id = ? AND item_key = ? ORDER BY operation NOT IN ('create', 'search'), turn, rowid`)
    .all(runId, itemKey)
    .map(readTrace);
}

/**
 * Each item's link: its first turn's send (a create's trace holds the whole conversation), else its search's,
 * else the first trace it kept; by item key.
 */
export function itemTraceLinks(db: Database.Database, runId: number): Map<string, { id: string; url: string | null }> {
  const rows = db
    .prepare(
      `SELECT item_key AS itemKey, trace_id AS id, url FROM traces WHERE run_id = ?
      ORDER BY item_key, operation NOT IN ('create', 'search'), turn, rowid`,
    )
    .all(runId) as Array<{ itemKey: string; id: string; url: string | null }>;
  const links = new Map<string, { id: string; url: string | null }>();
  for (const r of rows) if (!links.has(r.itemKey)) links.set(r.itemKey, { id: r.id, url: r.url });
  return links;
}

/** An item of a run with its time and its trace link (the report's slowest and failed items). */
export interface TracedItemRow {
  kind: 'question' | 'search';
  target: string;
  suiteItemId: string;
  repeat: number;
  outcome: string | null;
  /** Server time of its turns (their wall time where the server gave none), or the search's duration. */
  ms: number | null;
  /** Its checks or its outcome failed. */
  failed: boolean;
  traceId: string | null;
  traceUrl: string | null;
}

export interface TraceOverview {
  /** Traces the run kept, and the items they belong to. */
  traces: number;
  items: number;
  /** The slowest finished items, slowest first. */
  slowest: TracedItemRow[];
  /** Finished items that failed or erred, with a trace kept, in plan order. */
  failed: TracedItemRow[];
}

const ITEM_LINK = (field: 'trace_id' | 'url') =>
  `(SELECT x.${field} FROM traces x WHERE x.run_id = i.run_id AND x.item_key = i.key ORDER BY x.operation NOT IN ('create', 'search'), x.turn, x.rowid LIMIT 1)`;

/** What the reports list of a run's traces; undefined when the run kept none (it was not traced). */
export function traceOverview(db: Database.Database, runId: number, limit: number): TraceOverview | undefined {
  const kept = db.prepare('SELECT count(*) AS traces, count(DISTINCT item_key) AS items FROM traces WHERE run_id = ?').get(runId) as { traces: number; items: number };
  if (kept.traces === 0) return undefined;
  const select = `SELECT i.kind, i.target, i.suite_item_id AS suiteItemId, i.repeat, i.outcome,
      CASE i.kind WHEN 'search' THEN (SELECT coalesce(s.duration_ms, s.wall_ms) FROM searches s WHERE s.run_id = i.run_id AND s.item_key = i.key)
        ELSE (SELECT sum(coalesce(t.server_ms, t.wall_ms)) FROM turns t WHERE t.run_id = i.run_id AND t.item_key = i.key) END AS ms,
      (coalesce(i.outcome, '') NOT IN ('completed', 'complete', 'limit_hit')
        OR EXISTS (SELECT 1 FROM expectations e WHERE e.run_id = i.run_id AND e.item_key = i.key AND e.passed = 0)) AS failed,
      ${ITEM_LINK('trace_id')} AS traceId, ${ITEM_LINK('url')} AS traceUrl
    FROM items i WHERE i.run_id = ? AND i.status = 'done'`;
  const read = (row: unknown): TracedItemRow => ({ ...(row as TracedItemRow), failed: (row as { failed: number }).failed === 1 });
  const slowest = db.prepare(`SELECT * FROM (${select}) WHERE ms IS NOT NULL ORDER BY ms DESC, suiteItemId LIMIT ?`).all(runId, limit).map(read);
  const failed = db.prepare(`SELECT * FROM (${select} ORDER BY i.position) WHERE failed = 1 AND traceId IS NOT NULL LIMIT ?`).all(runId, limit).map(read);
  return { traces: kept.traces, items: kept.items, slowest, failed };
}

/** The traces `--trace-fetch` downloads: each item's sends and searches (a poll's trace holds only the poll), by target, in plan order. */
export function tracesToFetch(db: Database.Database, runId: number): Array<{ target: string; itemKey: string; id: string }> {
  return db
    .prepare(
      `SELECT i.target, x.item_key AS itemKey, x.trace_id AS id FROM traces x JOIN items i ON i.run_id = x.run_id AND i.key = x.item_key
      WHERE x.run_id = ? AND x.operation <> 'poll' ORDER BY i.position, x.turn, x.rowid`,
    )
    .all(runId) as Array<{ target: string; itemKey: string; id: string }>;
}
