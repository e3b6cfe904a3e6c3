import type Database from 'better-sqlite3';
import { redact } from '../redact.js';
import type { TraceRef } from '../model/conversation.js';
import type { TracedRequest } from '../model/trace.js';
import { type SqlValue, binder, insertSql } from './columns.js';
import { withoutLinkSecrets } from './secrets.js';
import { TRACES } from './tables.js';

// The traces of a run's traced requests (run --trace), written beside the turn or search whose reply named them.

const bindTrace = binder(TRACES);

/** A trace link as stored: never with a user, password, secret query parameter or registered secret. */
function traceUrl(url: string | undefined): string | null {
  return url === undefined ? null : redact(withoutLinkSecrets(url));
}

interface ItemRef {
  runId: number;
  itemKey: string;
}

export function prepareTraceWriters(db: Database.Database) {
  // A trace id is one request's: the same trace recorded again (a turn written twice) is kept once.
  const insert = db.prepare<[readonly SqlValue[]]>(insertSql('traces', TRACES, 'ignore'));
  const remove = db.prepare<[readonly SqlValue[]]>('DELETE FROM traces WHERE run_id = ? AND item_key = ?');
  const write = (ref: ItemRef, turn: number | null, t: TracedRequest) =>
    insert.run(bindTrace({ runId: ref.runId, itemKey: ref.itemKey, turn, operation: t.operation, traceId: t.id, url: traceUrl(t.url), note: t.note ?? null }));
  return {
    turn(ref: ItemRef, turn: number, traces: readonly TracedRequest[]): void {
      for (const t of traces) write(ref, turn, t);
    },
    search(ref: ItemRef, trace: TraceRef): void {
      write(ref, null, { operation: 'search', ...trace });
    },
    /** Forgets the item's trace links (`--trace failed`, an item that passed). */
    drop(ref: ItemRef): void {
      remove.run([ref.runId, ref.itemKey]);
    },
  };
}
