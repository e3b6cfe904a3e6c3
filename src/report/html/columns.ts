// The report page's long tables come as positional rows (browser/data.ts): these are their columns, in order,
// the one list both sides use; plain data, so the CLI and the browser's bundle (browser/tsconfig.json) share it. The page's writer (report-html.ts) fills a row by column name with `rowOf`; the viewer
// (report-view.ts) finds each cell by name with `columnIndex` over the list the page embeds.

/** A row of the questions table: one turn. */
export const TURN_COLUMNS = [
  'target', 'id', 'repeat', 'turn', 'state', 'errorCode', 'serverMs', 'wallMs', 'tokens', 'credits', 'verdict', 'reasons', 'itemVerdict',
  'judgeScore', 'citationsValid', 'citationsInvalid', 'answer', 'grading', 'errorMessage', 'partial',
] as const;

/** A row of the searches table: one search. */
export const SEARCH_COLUMNS = ['target', 'id', 'repeat', 'verdict', 'count', 'exhaustive', 'durationMs', 'wallMs', 'checks', 'why', 'query'] as const;

export type TurnColumn = (typeof TURN_COLUMNS)[number];
export type SearchColumn = (typeof SEARCH_COLUMNS)[number];

/** A row in its columns' order from its cells by name: a cell can be neither left out nor put in another's place. */
export function rowOf<C extends string, V>(columns: readonly C[], cells: Record<C, V>): V[] {
  return columns.map((c) => cells[c]);
}

/** Each column's place in a row. */
export function columnIndex<C extends string>(columns: readonly C[]): Record<C, number> {
  const index = {} as Record<C, number>;
  columns.forEach((c, i) => (index[c] = i));
  return index;
}
