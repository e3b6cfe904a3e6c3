import type Database from 'better-sqlite3';
import { isPartialAnswer } from '../model/partial.js';
import { type Codec, type RowOf, column, decoder, nullable, num, pick, qualified, selectList, text, valuesReader } from './columns.js';
import { EXPECTATIONS_JSON, type ExpectationRecord, type ExportOptions, ITEM_EXPORTED, TURN_EXPORTED, type TurnRow, exportOrder, parseExpectations, traceOfRow } from './item-readers.js';
import { ITEMS } from './tables.js';

// The question export (questions.csv, comparisons): every turn of a run with its item, sources, follow-ups,
// expectations, grade and citations, streamed in one pass, nothing heavier than a row in memory.

export interface QuestionExportRow extends TurnRow {
  runId: number;
  /** The item's tags as stored (JSON text): summaries group by it. */
  tagsJson: string;
  /** Source links in the order the server gave them; empty when none were recorded. */
  sourceLinks: string[];
  suggestedFollowups: string[];
  /** Every expectation of the item (not only this turn's), in check order. */
  expectations: ExpectationRecord[];
  /** Highest turn recorded for the item: item-level checks belong to it. */
  lastTurn: number;
  /** The judge's score of this turn (the lowest when two rubrics grade it); null when not graded. */
  judgeScore: number | null;
  /** Citations of this turn checked valid and invalid (0 and 0 when none were checked). */
  citationsValid: number;
  citationsInvalid: number;
  /** The reply's stat anomalies as stored (a JSON array of descriptions); null when its stats could be true. */
  anomalies: string | null;
  traceId: string | null;
  traceUrl: string | null;
}

const jsonList: Codec<string[]> = { decode: (json: string) => (json === '[]' ? [] : (JSON.parse(json) as string[])) };
const ofTurn = (table: string, alias: string) => `FROM ${table} ${alias} WHERE ${alias}.run_id = t.run_id AND ${alias}.item_key = t.item_key AND ${alias}.turn = t.turn`;

/**
 * The terms the export selects, each an expression with the field it is read as. The item's tags and
 * expectations come as their JSON text: the export parses them once for all the turns of an item.
 */
const QUESTION_EXPORT = [
  ...qualified(ITEM_EXPORTED.map((c) => (c.field === 'tags' ? column(c.name, 'tags', text) : c)), 'i'),
  ...qualified(pick(ITEMS, 'conversationRef'), 'i'),
  ...qualified(TURN_EXPORTED, 't'),
  column(`(SELECT json_group_array(s.link ORDER BY s.position) ${ofTurn('sources', 's')})`, 'sourceLinks', jsonList),
  column(`(SELECT json_group_array(f.text ORDER BY f.position) ${ofTurn('suggested_followups', 'f')})`, 'suggestedFollowups', jsonList),
  column(EXPECTATIONS_JSON, 'expectations', nullable(text)),
  column('(SELECT max(t2.turn) FROM turns t2 WHERE t2.run_id = t.run_id AND t2.item_key = t.item_key)', 'lastTurn', num),
  column(`(SELECT min(g.score) ${ofTurn('grades', 'g')})`, 'judgeScore', nullable(num)),
  column(`(SELECT count(*) ${ofTurn('citations', 'c')} AND c.status = 'valid')`, 'citationsValid', num),
  column(`(SELECT count(*) ${ofTurn('citations', 'c')} AND c.status = 'invalid')`, 'citationsInvalid', num),
  column('t.anomalies', 'anomalies', nullable(text)),
  column(traceOfRow('trace_id', 't.run_id', 't.item_key', 't.turn'), 'traceId', nullable(text)),
  column(traceOfRow('url', 't.run_id', 't.item_key', 't.turn'), 'traceUrl', nullable(text)),
];
type ExportColumns = RowOf<typeof QUESTION_EXPORT>;

const readValues = valuesReader(QUESTION_EXPORT);
const readPlain = decoder(QUESTION_EXPORT);

/**
 * The query of iterateQuestionExport: parameters run id, then the target twice (null for all). With
 * `rowFunction`, one column: that SQL function called with every term as its arguments.
 */
export function questionExportSql(options: ExportOptions = {}, rowFunction?: string): string {
  const select = rowFunction === undefined ? selectList(QUESTION_EXPORT) : `${rowFunction}(${QUESTION_EXPORT.map((c) => c.name).join(',\n      ')})`;
  return `SELECT ${select}
    FROM items i CROSS JOIN turns t ON t.run_id = i.run_id AND t.item_key = i.key
    WHERE i.run_id = ? AND (? IS NULL OR i.target = ?) ORDER BY ${exportOrder(options)}, t.turn`;
}

/** Parses JSON text, reusing the last result for the same text: an item's turns come one after another and share its tags and expectations. */
function lastParsed<J, T>(parse: (json: J) => T): (json: J) => T {
  let lastJson: J | undefined;
  let last: T;
  return (json) => {
    if (json !== lastJson) {
      last = parse(json);
      lastJson = json;
    }
    return last;
  };
}

/** A connection's export row function: the values of the row it was last handed, and how many it has been handed. */
interface RowFunction {
  name: string;
  row: unknown[];
  handed: number;
}

const rowFunctions = new WeakMap<Database.Database, RowFunction>();

/** Registered at a connection's first export, before any statement of it is read (a busy connection takes no new function). */
function rowFunctionOf(db: Database.Database): RowFunction {
  let fn = rowFunctions.get(db);
  if (fn === undefined) {
    const registered: RowFunction = { name: 'dsbench_export_row', row: [], handed: 0 };
    db.function(registered.name, { varargs: true, deterministic: false }, (...values: unknown[]) => {
      registered.row = values;
      return ++registered.handed;
    });
    rowFunctions.set(db, (fn = registered));
  }
  return fn;
}

/**
 * The export query's rows. better-sqlite3 (on Node 20) builds a row through V8's generic element store, one
 * call per value: about a sixth of the time it takes to read the rows. A SQL function's arguments come to
 * JavaScript in one call, so the query hands each row's values to one (read into a row by the column
 * table's compiled reader) and returns the sequence number of the row handed over. Each row is taken as
 * soon as its step returns, so two reads on one connection may interleave. When the plan sorts (SQLite
 * would then evaluate rows before it returns them), plain rows are read instead.
 */
function* questionExportRows(db: Database.Database, runId: number, options: ExportOptions): Generator<ExportColumns> {
  const target = options.target ?? null;
  const fn = rowFunctionOf(db);
  const plainSql = questionExportSql(options);
  // A sort of the outer query (not of a json_group_array inside a subquery) is a step at the top of the plan.
  const plan = db.prepare(`EXPLAIN QUERY PLAN ${plainSql}`).all(runId, target, target) as Array<{ parent: number; detail: string }>;
  if (plan.some((step) => step.parent === 0 && step.detail.includes('TEMP B-TREE'))) {
    for (const row of db.prepare(plainSql).iterate(runId, target, target)) yield readPlain(row);
    return;
  }
  for (const sequence of db.prepare(questionExportSql(options, fn.name)).pluck(true).iterate(runId, target, target) as IterableIterator<number>) {
    if (sequence !== fn.handed) throw new Error(`internal error: the export query returned row ${sequence} after handing over row ${fn.handed}`);
    yield readValues(fn.row);
  }
}

/** Every turn of a run with its sources, follow-ups and the item's expectations (for questions.csv and comparisons). */
export function* iterateQuestionExport(db: Database.Database, runId: number, options: ExportOptions = {}): Generator<QuestionExportRow> {
  // Shared by the turns of one item, never changed by a reader.
  const tagsOf = lastParsed((json: string) => JSON.parse(json) as string[]);
  const expectationsOf = lastParsed(parseExpectations);
  for (const stored of questionExportRows(db, runId, options)) {
    const { tags, expectations } = stored;
    const row = stored as unknown as QuestionExportRow;
    row.runId = runId;
    row.tagsJson = tags;
    row.tags = tagsOf(tags);
    row.expectations = expectationsOf(expectations);
    row.partial = isPartialAnswer(row.state, row.answer);
    yield row;
  }
}
