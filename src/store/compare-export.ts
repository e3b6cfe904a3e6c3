import type Database from 'better-sqlite3';
import { type Codec, type RowOf, column, nullable, num, pick, qualified, selectList, text, valuesReader } from './columns.js';
import { EXPECTATIONS_JSON, type ExpectationRecord, ITEM_EXPORTED, type ExportOptions, TURN_EXPORTED, parseExpectations, traceOfRow } from './item-readers.js';

// The question turns a comparison reads: only the terms compare uses (pairing key, state, metrics, answer,
// sources, checks, grade, citations, trace link, and the text the page shows), as arrays, one query a
// run. The whole export (question-export.ts) reads some forty terms more, which was a third of a
// 100,000-pair compare.

const jsonList: Codec<string[]> = { decode: (json: string) => (json === '[]' ? [] : (JSON.parse(json) as string[])) };
const ofTurn = (table: string, alias: string) => `FROM ${table} ${alias} WHERE ${alias}.run_id = t.run_id AND ${alias}.item_key = t.item_key AND ${alias}.turn = t.turn`;

const COMPARED = [
  ...qualified(pick(ITEM_EXPORTED, 'target', 'suiteItemId', 'repeat', 'definitionHash'), 'i'),
  column('i.tags_json', 'tagsJson', text),
  ...qualified(pick(TURN_EXPORTED, 'turn', 'text', 'state', 'errorCode', 'answer', 'serverMs', 'wallMs', 'toolCalls', 'totalTokens', 'credits'), 't'),
  column(`(SELECT json_group_array(s.link ORDER BY s.position) ${ofTurn('sources', 's')})`, 'sourceLinks', jsonList),
  column(EXPECTATIONS_JSON, 'expectations', nullable(text)),
  column('(SELECT max(t2.turn) FROM turns t2 WHERE t2.run_id = t.run_id AND t2.item_key = t.item_key)', 'lastTurn', num),
  column(`(SELECT min(g.score) ${ofTurn('grades', 'g')})`, 'judgeScore', nullable(num)),
  column(`(SELECT count(*) ${ofTurn('citations', 'c')} AND c.status = 'valid')`, 'citationsValid', num),
  column(`(SELECT count(*) ${ofTurn('citations', 'c')} AND c.status = 'invalid')`, 'citationsInvalid', num),
  column(traceOfRow('url', 't.run_id', 't.item_key', 't.turn'), 'traceUrl', nullable(text)),
];

/** A question turn as a comparison reads it (the fields of the whole export's row that compare uses). */
export interface ComparedQuestionRow extends Omit<RowOf<typeof COMPARED>, 'expectations'> {
  /** Every expectation of the item (not only this turn's), in check order; shared by the item's turns. */
  expectations: ExpectationRecord[];
}

const readValues = valuesReader(COMPARED);

/**
 * The query: parameters run id, then the target twice (null for all). In key order with the item's id
 * last, which the items_pairing index (its rows end with the id) and the turns' key give without a sort.
 */
export function comparedQuestionsSql(): string {
  return `SELECT ${selectList(COMPARED)}
    FROM items i CROSS JOIN turns t ON t.run_id = i.run_id AND t.item_key = i.key
    WHERE i.run_id = ? AND (? IS NULL OR i.target = ?) ORDER BY i.target, i.suite_item_id, i.repeat, i.id, t.turn`;
}

/** Every question turn of a run in key order (target, item id, repeat, turn), with what compare needs of it. */
export function* iterateComparedQuestions(db: Database.Database, runId: number, options: Pick<ExportOptions, 'target'> = {}): Generator<ComparedQuestionRow> {
  const target = options.target ?? null;
  let lastJson: string | null | undefined;
  let expectations: ExpectationRecord[] = [];
  for (const values of db.prepare(comparedQuestionsSql()).raw(true).iterate(runId, target, target) as IterableIterator<unknown[]>) {
    const stored = readValues(values);
    // An item's turns come one after another and share its expectations: parsed once for them all.
    const json = stored.expectations;
    const row = stored as unknown as ComparedQuestionRow;
    if (json !== lastJson) {
      expectations = parseExpectations(json);
      lastJson = json;
    }
    row.expectations = expectations;
    yield row;
  }
}
