import type Database from 'better-sqlite3';
import type { Source } from '../model/conversation.js';
import { type Codec, type Columns, type RowOf, column, decoder, pick, selectList } from './columns.js';
import { EXPECTATIONS_JSON, type ExpectationRecord, parseExpectations } from './item-readers.js';
import { FOLLOWUPS, ITEMS, SOURCES, TURNS, type TurnColumns } from './tables.js';

// A run's items as stored, in plan order, each with its turns, their sources and suggested follow-ups: read
// back by a resume (with the item columns it needs) and, whole, by storedItems.

/** A turn's row as stored, with its sources and suggested follow-ups in the server's order. */
export interface StoredTurn extends TurnColumns {
  sources: Source[];
  suggestedFollowups: string[];
}

/** The turns of every item, or only of those not done (all a resume runs again needs). */
export type TurnsOf = 'all' | 'unfinished';

const UNFINISHED = `SELECT key FROM items WHERE run_id = @runId AND status <> 'done'`;

const KEY = pick(ITEMS, 'itemKey');
const SOURCE_READ = pick(SOURCES, 'itemKey', 'turn', 'type', 'link', 'label');
const FOLLOWUP_READ = pick(FOLLOWUPS, 'itemKey', 'turn', 'text');

const readTurn = decoder(TURNS);
const readSource = decoder(SOURCE_READ);
const readFollowup = decoder(FOLLOWUP_READ);

/**
 * Prepared once (a resume reads with no SQL parsing): reads `columns` of every item of a run in plan order, one
 * at a time (`each` must not use this connection: the items are read by a cursor), with its turns.
 */
export function prepareItemRows<C extends Columns>(db: Database.Database, columns: C) {
  const itemColumns = columns.some((c) => c.field === 'itemKey') ? columns : [...KEY, ...columns];
  const readItem = decoder(itemColumns) as (row: unknown) => RowOf<C> & RowOf<typeof KEY>;
  const selectItems = db.prepare<[{ runId: number }]>(`SELECT ${selectList(itemColumns)} FROM items i WHERE i.run_id = @runId ORDER BY i.position`);
  // A child of only the unfinished items, or of all of them.
  const ofItems = (table: string, select: Columns, turnsOf: TurnsOf, order: string) =>
    db.prepare<[{ runId: number }]>(
      `SELECT ${selectList(select)} FROM ${table} WHERE run_id = @runId${turnsOf === 'unfinished' ? ` AND item_key IN (${UNFINISHED})` : ''} ORDER BY ${order}`,
    );
  const children = (turnsOf: TurnsOf) => ({
    turns: ofItems('turns', TURNS, turnsOf, 'item_key, turn'),
    sources: ofItems('sources', SOURCE_READ, turnsOf, 'item_key, turn, position'),
    followups: ofItems('suggested_followups', FOLLOWUP_READ, turnsOf, 'item_key, turn, position'),
  });
  const read = { all: children('all'), unfinished: children('unfinished') };

  return (runId: number, turnsOf: TurnsOf, each: (item: RowOf<C> & RowOf<typeof KEY>, turns: StoredTurn[]) => void): void => {
    const statements = read[turnsOf];
    const sources = groupByTurn(statements.sources.all({ runId }).map(readSource), ({ type, link, label }): Source => ({ type, link, label }));
    const followups = groupByTurn(statements.followups.all({ runId }).map(readFollowup), (r) => r.text);
    const turnsByItem = new Map<string, StoredTurn[]>();
    for (const row of statements.turns.all({ runId })) {
      // The decoded row itself, its sources and follow-ups added: no copy of every turn of a run.
      const turn = readTurn(row) as StoredTurn;
      const key = turnKey(turn);
      turn.sources = sources.get(key) ?? [];
      turn.suggestedFollowups = followups.get(key) ?? [];
      let list = turnsByItem.get(turn.itemKey);
      if (!list) turnsByItem.set(turn.itemKey, (list = []));
      list.push(turn);
    }
    for (const row of selectItems.iterate({ runId })) {
      const item = readItem(row);
      each(item, turnsByItem.get(item.itemKey) ?? []);
    }
  };
}

interface ChildRow {
  itemKey: string;
  turn: number;
}

const turnKey = (row: ChildRow) => `${row.itemKey}\u0000${row.turn}`;

function groupByTurn<R extends ChildRow, T>(rows: R[], pick: (row: R) => T): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const key = turnKey(row);
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    list.push(pick(row));
  }
  return groups;
}

const expectationList: Codec<ExpectationRecord[]> = { decode: (json: string | null) => parseExpectations(json) };

/** An item's row whole, with its expectations in check order. */
const ITEM_WHOLE = [...ITEMS, column(EXPECTATIONS_JSON, 'expectations', expectationList)] as const;

export interface StoredItem extends RowOf<typeof ITEM_WHOLE> {
  turns: StoredTurn[];
}

/** Every item of a run as stored, in plan order, with its expectations and turns. */
export function storedItems(db: Database.Database, runId: number): StoredItem[] {
  const items: StoredItem[] = [];
  prepareItemRows(db, ITEM_WHOLE)(runId, 'all', (item, turns) => items.push({ ...item, turns }));
  return items;
}
