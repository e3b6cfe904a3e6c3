import type Database from 'better-sqlite3';
import { isPartialAnswer } from '../model/partial.js';
import { type Codec, type RowOf, column, nullable, num, pick, qualified, text, valuesReader } from './columns.js';
import { rowValues, selectSql } from './row-values.js';
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

const questionExportRest = (options: ExportOptions): string => `FROM items i CROSS JOIN turns t ON t.run_id = i.run_id AND t.item_key = i.key
    WHERE i.run_id = ? AND (? IS NULL OR i.target = ?) ORDER BY ${exportOrder(options)}, t.turn`;

/** The query of iterateQuestionExport: parameters run id, then the target twice (null for all). */
export function questionExportSql(options: ExportOptions = {}): string {
  return selectSql(QUESTION_EXPORT, questionExportRest(options));
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

function* questionExportRows(db: Database.Database, runId: number, options: ExportOptions): Generator<ExportColumns> {
  const target = options.target ?? null;
  for (const values of rowValues(db, QUESTION_EXPORT, questionExportRest(options), [runId, target, target])) yield readValues(values);
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
