import type Database from 'better-sqlite3';
import { type Codec, type RowOf, column, nullable, num, pick, qualified, text, valuesReader } from './columns.js';
import { rowValues, selectSql } from './row-values.js';
import { EXPECTATIONS_JSON, type ExpectationRecord, ITEM_EXPORTED, type ExportOptions, TURN_EXPORTED, parseExpectations, traceOfRow } from './item-readers.js';

// The question turns a comparison reads: only the terms compare uses (pairing key, state, metrics, answer,
// sources, checks, grade, citations, trace link, and the text the page shows), as arrays, one query a
// run. The whole export (question-export.ts) reads some forty terms more, which was a third of a
// 100,000-pair compare.

const jsonList: Codec<string[]> = { decode: (json: string) => (json === '[]' ? [] : (JSON.parse(json) as string[])) };
const ofTurn = (table: string, alias: string) => `FROM ${table} ${alias} WHERE ${alias}.run_id = t.run_id AND ${alias}.item_key = t.item_key AND ${alias}.turn = t.turn`;

const COMPARED = [
  column('i.id', 'itemRowId', num),
  ...qualified(pick(ITEM_EXPORTED, 'target', 'suiteItemId', 'repeat', 'definitionHash'), 'i'),
  column('i.tags_json', 'tagsJson', text),
  ...qualified(pick(TURN_EXPORTED, 'turn', 'text', 'state', 'errorCode', 'answer', 'serverMs', 'wallMs', 'toolCalls', 'totalTokens', 'credits'), 't'),
  column(`(SELECT json_group_array(s.link ORDER BY s.position) ${ofTurn('sources', 's')})`, 'sourceLinks', jsonList),
  // The item's expectations on its turn 0 only: its other turns take them from it (or, without a turn 0, from one more query).
  column(`CASE WHEN t.turn = 0 THEN ${EXPECTATIONS_JSON} END`, 'expectations', nullable(text)),
  column(`(SELECT min(g.score) ${ofTurn('grades', 'g')})`, 'judgeScore', nullable(num)),
  column(`(SELECT count(*) ${ofTurn('citations', 'c')} AND c.status = 'valid')`, 'citationsValid', num),
  column(`(SELECT count(*) ${ofTurn('citations', 'c')} AND c.status = 'invalid')`, 'citationsInvalid', num),
  column(traceOfRow('url', 't.run_id', 't.item_key', 't.turn'), 'traceUrl', nullable(text)),
];

/** A question turn as a comparison reads it (the fields of the whole export's row that compare uses). */
export interface ComparedQuestionRow extends Omit<RowOf<typeof COMPARED>, 'expectations' | 'itemRowId'> {
  /** Every expectation of the item (not only this turn's), in check order; shared by the item's turns. */
  expectations: ExpectationRecord[];
  /** Highest turn recorded for the item: item-level checks belong to it. */
  lastTurn: number;
}

const readValues = valuesReader(COMPARED);

/**
 * After FROM: parameters run id, then the target twice (null for all). In key order with the item's id
 * last, which the items_pairing index (its entries end with the id) and the turns' key give without a sort.
 */
const COMPARED_REST = `FROM items i CROSS JOIN turns t ON t.run_id = i.run_id AND t.item_key = i.key
    WHERE i.run_id = ? AND (? IS NULL OR i.target = ?) ORDER BY i.target, i.suite_item_id, i.repeat, i.id, t.turn`;

export const comparedQuestionsSql = (): string => selectSql(COMPARED, COMPARED_REST);

/**
 * Every question turn of a run in key order (target, item id, repeat, turn), with what compare needs of
 * it. An item's turns come together in turn order: they are held until the next item's (a few rows), which
 * tells their last turn.
 */
export function* iterateComparedQuestions(db: Database.Database, runId: number, options: Pick<ExportOptions, 'target'> = {}): Generator<ComparedQuestionRow> {
  const target = options.target ?? null;
  const expectationsOf = db.prepare(`SELECT ${EXPECTATIONS_JSON} FROM items i WHERE i.id = ?`).pluck(true);
  let item: ComparedQuestionRow[] = [];
  let itemRowId = -1;
  let expectations: ExpectationRecord[] = [];
  let lastJson: string | null | undefined;
  for (const values of rowValues(db, COMPARED, COMPARED_REST, [runId, target, target])) {
    const stored = readValues(values);
    const row = stored as unknown as ComparedQuestionRow;
    if (stored.itemRowId !== itemRowId) {
      yield* lastTurnOf(item);
      item = [];
      itemRowId = stored.itemRowId;
      const json = row.turn === 0 ? stored.expectations : (expectationsOf.get(itemRowId) as string | null);
      // Items of one question (its repeats) come one after another, most with the same checks.
      if (json !== lastJson) {
        expectations = parseExpectations(json);
        lastJson = json;
      }
    }
    row.expectations = expectations;
    item.push(row);
  }
  yield* lastTurnOf(item);
}

/** An item's turns (in turn order) with its last turn. */
function lastTurnOf(turns: ComparedQuestionRow[]): ComparedQuestionRow[] {
  const last = turns.at(-1)?.turn ?? 0;
  for (const t of turns) t.lastTurn = last;
  return turns;
}
