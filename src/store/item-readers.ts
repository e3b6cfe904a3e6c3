import type Database from 'better-sqlite3';
import type { ItemKind, ItemStatus } from '../model/item.js';
import { isPartialAnswer } from '../model/partial.js';
import { type RowOf, decoder, omit, pick, qualified, selectList } from './columns.js';
import { ITEMS, SEARCHES, TURNS } from './tables.js';

// Readers of a run's items with their turns or searches, for reports. Rows use camelCase and `null` for
// absent values (never 0). The iterators stream rows from SQLite; while one is open, this connection cannot
// write (better-sqlite3 rule).

/** An item's columns as the exports name them beside a turn's or a search's. */
export const ITEM_EXPORTED = pick(ITEMS, 'itemKey', 'kind', 'target', 'suiteItemId', 'repeat', 'tags', 'itemStatus', 'outcome', 'definitionHash');
export type ItemColumns = RowOf<typeof ITEM_EXPORTED>;

/** A turn's columns as the exports name them (the item's key is the item's; anomalies are read apart). */
export const TURN_EXPORTED = omit(TURNS, 'runId', 'itemKey', 'anomalies');

export interface TurnRow extends ItemColumns, RowOf<typeof TURN_EXPORTED> {
  conversationRef: string | null;
  /** The instance's trace of the turn (its send's, else a poll's: run --trace); null when none was kept. */
  traceId?: string | null;
  traceUrl?: string | null;
  /** The answer came with an error state (or a cancel): what was written before it stopped. */
  partial: boolean;
}

const SEARCH_EXPORTED = omit(SEARCHES, 'runId', 'itemKey');

export interface SearchRow extends ItemColumns, RowOf<typeof SEARCH_EXPORTED> {
  /** The instance's trace of the search request (run --trace); null when none was kept. */
  traceId: string | null;
  traceUrl: string | null;
}

/**
 * The trace a row links to: of the turn (`turn`, an SQL expression) its send's before its polls', of a search
 * its request's; `field` is `trace_id` or `url`.
 */
export function traceOfRow(field: 'trace_id' | 'url', run: string, item: string, turn?: string): string {
  const ofTurn = turn === undefined ? '' : ` AND x.turn = ${turn}`;
  return `(SELECT x.${field} FROM traces x WHERE x.run_id = ${run} AND x.item_key = ${item}${ofTurn} ORDER BY x.operation = 'poll', x.rowid LIMIT 1)`;
}

export interface ExpectationRecord {
  name: string;
  passed: boolean;
  reason: string;
  /** The turn it was checked on; null for a check on the whole item. */
  turn: number | null;
}

export interface SearchExportRow extends SearchRow {
  expectations: ExpectationRecord[];
}

export interface ExportOptions {
  /** `plan` (default): plan order then turn; `key`: target, suite item id, repeat, turn (for pairing runs). */
  order?: 'plan' | 'key';
  /** Only this target's items. */
  target?: string | undefined;
}

export const EXPECTATIONS_JSON = `(SELECT json_group_array(json_object('name', e.name, 'passed', e.passed, 'reason', e.reason, 'turn', e.turn)
    ORDER BY e.position) FROM expectations e WHERE e.run_id = i.run_id AND e.item_key = i.key)`;

export function parseExpectations(json: string | null): ExpectationRecord[] {
  if (!json || json === '[]') return [];
  return (JSON.parse(json) as Array<{ name: string; passed: number; reason: string; turn: number | null }>).map((e) => ({
    name: e.name,
    passed: e.passed === 1,
    reason: e.reason,
    turn: e.turn,
  }));
}

// The exports drive from items (CROSS JOIN fixes the join order): in plan order SQLite then walks the
// (run_id, position) index and each item's turns in turn order, with no sort of the whole run; in key order
// (compare) the items_pairing index. Left to itself it may scan turns and sort every row, all columns, in
// temporary files: several times slower.
export function exportOrder(options: ExportOptions): string {
  return options.order === 'key' ? 'i.target, i.suite_item_id, i.repeat' : 'i.position';
}

const ITEM_AND_CONVERSATION = [...qualified(ITEM_EXPORTED, 'i'), ...qualified(pick(ITEMS, 'conversationRef'), 'i')];
const readTurnRow = decoder([...ITEM_AND_CONVERSATION, ...qualified(TURN_EXPORTED, 't')]);

/** Every turn of a run with its item, in plan order then turn order. */
export function* iterateTurns(db: Database.Database, runId: number): Generator<TurnRow> {
  const statement = db.prepare(
    `SELECT ${selectList(ITEM_AND_CONVERSATION)}, ${selectList(qualified(TURN_EXPORTED, 't'))}
    FROM turns t JOIN items i ON i.run_id = t.run_id AND i.key = t.item_key
    WHERE t.run_id = ? ORDER BY i.position, t.turn`,
  );
  for (const raw of statement.iterate(runId)) {
    const row = readTurnRow(raw) as TurnRow;
    row.partial = isPartialAnswer(row.state, row.answer);
    yield row;
  }
}

const SEARCH_READ = [...qualified(ITEM_EXPORTED, 'i'), ...qualified(SEARCH_EXPORTED, 's')];
const readSearchRow = decoder(SEARCH_READ);

/** The one reader of a run's searches with their items; with `expectations`, each item's expectations too. */
function* searchRows(db: Database.Database, runId: number, options: ExportOptions, expectations: boolean): Generator<SearchRow & { expectations?: string | null }> {
  const statement = db.prepare(
    `SELECT ${selectList(SEARCH_READ)}, ${traceOfRow('trace_id', 'i.run_id', 'i.key')} AS traceId, ${traceOfRow('url', 'i.run_id', 'i.key')} AS traceUrl${expectations ? `, ${EXPECTATIONS_JSON} AS expectations` : ''}
    FROM items i CROSS JOIN searches s ON s.run_id = i.run_id AND s.item_key = i.key
    WHERE i.run_id = ? AND i.kind = 'search' AND (? IS NULL OR i.target = ?) ORDER BY ${exportOrder(options)}`,
  );
  const target = options.target ?? null;
  for (const raw of statement.iterate(runId, target, target)) yield readSearchRow(raw) as SearchRow;
}

/** Every search of a run with its item, in plan order. */
export function iterateSearches(db: Database.Database, runId: number): Generator<SearchRow> {
  return searchRows(db, runId, {}, false);
}

/** Every search of a run with its item's expectations. */
export function* iterateSearchExport(db: Database.Database, runId: number, options: ExportOptions = {}): Generator<SearchExportRow> {
  for (const row of searchRows(db, runId, options, true)) yield { ...row, expectations: parseExpectations(row.expectations ?? null) };
}

/** The numeric columns of a turn that summaries need; tags as the stored JSON text (cheap to group by). */
export interface TurnMetricRow {
  target: string;
  suiteItemId: string;
  repeat: number;
  tagsJson: string;
  turn: number;
  state: string;
  errorCode: string | null;
  wallMs: number | null;
  serverMs: number | null;
  totalTokens: number | null;
  /** Input tokens served from the model's prompt cache. */
  cachedTokens: number | null;
  credits: number | null;
  toolCalls: number | null;
}

/** Every turn of a run, light: no text columns. */
export function iterateTurnMetrics(db: Database.Database, runId: number): IterableIterator<TurnMetricRow> {
  return db
    .prepare(
      `SELECT i.target, i.suite_item_id AS suiteItemId, i.repeat, i.tags_json AS tagsJson, t.turn, t.state,
        t.error_code AS errorCode, t.wall_ms AS wallMs, t.server_ms AS serverMs, t.total_tokens AS totalTokens,
        t.cached_tokens AS cachedTokens, t.credits, t.tool_calls AS toolCalls
      FROM turns t JOIN items i ON i.run_id = t.run_id AND i.key = t.item_key WHERE t.run_id = ?`,
    )
    .iterate(runId) as IterableIterator<TurnMetricRow>;
}

/** One row per item: where it is, and its expectations in short (`expectPassed` null when it has none). */
export interface ItemVerdictRow {
  kind: ItemKind;
  target: string;
  suiteItemId: string;
  repeat: number;
  tagsJson: string;
  status: ItemStatus;
  outcome: string | null;
  expectations: number;
  expectPassed: 0 | 1 | null;
}

/** The items of a run in plan order; with `unexported`, only those with no turn and no search recorded (the rows of the question and search exports carry the others). */
export function iterateItemVerdicts(db: Database.Database, runId: number, options: { unexported?: boolean } = {}): IterableIterator<ItemVerdictRow> {
  return db
    .prepare(
      `SELECT i.kind, i.target, i.suite_item_id AS suiteItemId, i.repeat, i.tags_json AS tagsJson, i.status, i.outcome,
        (SELECT count(*) FROM expectations e WHERE e.run_id = i.run_id AND e.item_key = i.key) AS expectations,
        (SELECT min(e.passed) FROM expectations e WHERE e.run_id = i.run_id AND e.item_key = i.key) AS expectPassed
      FROM items i WHERE i.run_id = ?
        ${options.unexported === true ? `AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.run_id = i.run_id AND t.item_key = i.key)
          AND NOT EXISTS (SELECT 1 FROM searches s WHERE s.run_id = i.run_id AND s.item_key = i.key)` : ''}
      ORDER BY i.position`,
    )
    .iterate(runId) as IterableIterator<ItemVerdictRow>;
}

