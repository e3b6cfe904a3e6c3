import type Database from 'better-sqlite3';
import type { RequeuedItem, StoppedMarker } from '../model/run.js';
import { type RowOf, decoder, selectList } from './columns.js';
import { REQUEUED_ATTEMPTS } from './tables.js';

/**
 * Moves every item of the run that dsbench stopped on an interruption (`markers`) back to `pending`: its
 * attempt is kept in `requeued_attempts` as it ended (outcome, message, conversation, texts asked, credits),
 * then its turns, search, expectations and grades are cleared so the item runs again from the start.
 * Run in the caller's write transaction; returns the items moved.
 */
export function requeueStoppedItems(db: Database.Database, runId: number, markers: readonly StoppedMarker[], at: string): RequeuedItem[] {
  if (markers.length === 0) return [];
  const match = markers.map(() => '(kind = ? AND outcome = ? AND message = ?)').join(' OR ');
  const items = db
    .prepare(`SELECT key, target, conversation_ref AS conversationRef FROM items WHERE run_id = ? AND status = 'done' AND (${match}) ORDER BY position`)
    .all(runId, ...markers.flatMap((m) => [m.kind, m.outcome, m.message])) as RequeuedItem[];
  const keep = db.prepare(
    `INSERT INTO requeued_attempts (run_id, item_key, attempt, target, kind, outcome, message, conversation_ref, turns, texts_json, credits,
        started_at, ended_at, requeued_at)
      SELECT i.run_id, i.key,
        (SELECT count(*) FROM requeued_attempts a WHERE a.run_id = i.run_id AND a.item_key = i.key),
        i.target, i.kind, i.outcome, i.message, i.conversation_ref,
        (SELECT count(*) FROM turns t WHERE t.run_id = i.run_id AND t.item_key = i.key),
        coalesce((SELECT json_group_array(text) FROM (SELECT text FROM turns t WHERE t.run_id = i.run_id AND t.item_key = i.key ORDER BY turn)), '[]'),
        (SELECT sum(credits) FROM turns t WHERE t.run_id = i.run_id AND t.item_key = i.key),
        i.started_at, i.ended_at, ?
      FROM items i WHERE i.run_id = ? AND i.key = ?`,
  );
  const clear = ['turns', 'searches', 'expectations'].map((table) => db.prepare(`DELETE FROM ${table} WHERE run_id = ? AND item_key = ?`));
  const reset = db.prepare(
    `UPDATE items SET status = 'pending', outcome = NULL, message = NULL, conversation_ref = NULL, conversation_created_at = NULL,
      started_at = NULL, ended_at = NULL, deleted_at = NULL WHERE run_id = ? AND key = ?`,
  );
  for (const item of items) {
    keep.run(at, runId, item.key);
    for (const statement of clear) statement.run(runId, item.key);
    reset.run(runId, item.key);
  }
  return items;
}

/** Attempts dsbench stopped on an interruption whose items a resume ran again, per target: how many, and their credits. */
export function requeuedAttempts(db: Database.Database, runId: number): Record<string, { attempts: number; credits: number | null }> {
  const rows = db
    .prepare('SELECT target, count(*) AS attempts, sum(credits) AS credits FROM requeued_attempts WHERE run_id = ? GROUP BY target')
    .all(runId) as Array<{ target: string; attempts: number; credits: number | null }>;
  return Object.fromEntries(rows.map((r) => [r.target, { attempts: r.attempts, credits: r.credits }]));
}

export type RequeuedAttemptRow = RowOf<typeof REQUEUED_ATTEMPTS>;

const readAttempt = decoder(REQUEUED_ATTEMPTS);

/** The attempts kept of a run's items run again, as they ended, by item and attempt. */
export function requeuedAttemptRows(db: Database.Database, runId: number): RequeuedAttemptRow[] {
  return db
    .prepare(`SELECT ${selectList(REQUEUED_ATTEMPTS)} FROM requeued_attempts WHERE run_id = ? ORDER BY item_key, attempt`)
    .all(runId)
    .map(readAttempt);
}
