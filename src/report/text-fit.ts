// Text for a terminal fitted to its width: a long line is wrapped at spaces, never inside a word (a number,
// a path, a command stays whole), and a table too wide for the width is turned (a few rows), wraps its cells
// within their columns, or, when even that cannot fit, is laid out as `header: value` lines, one block per row.
// Markdown, CSV, JSON and HTML are never fitted: only text for a terminal or a log.

export type Align = 'left' | 'right';

/** Columns a line takes: one per code point (what the tables have always counted). */
export function textWidth(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Words that stand between two values: "1.1 s / 2.0 s", "4 … 9", "6.4% → 17.0%". */
const SEPARATORS = new Set(['/', '…', '→', '-', '–', '—', '|', 'x', '×']);

/** Between two table columns. */
const GAP = '  ';

/**
 * The words of a one-line text, split at spaces. A short unit after a number stays with it ("1.5 s",
 * "300 ms", "3 KB"), so a value never ends one line and its unit starts the next.
 */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  for (const word of text.split(/\s+/)) {
    if (word === '') continue;
    const last = words.length - 1;
    if (last >= 0 && /^[A-Za-z%]{1,2}[,;)]?$/.test(word) && /\d$/.test(words[last]!)) words[last] += ` ${word}`;
    // A separator between two values ends the line before, so a line never starts with one.
    else if (last >= 0 && SEPARATORS.has(word)) words[last] += ` ${word}`;
    else words.push(word);
  }
  return words;
}

/**
 * Words filled into lines of at most `width` columns (`rest` from the second line on); a word wider than
 * that has a line of its own.
 */
export function fillLines(words: readonly string[], width: number, rest = width): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line === '') line = word;
    else if (textWidth(line) + 1 + textWidth(word) <= (lines.length === 0 ? width : rest)) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}

/**
 * One line of text fitted to `width`: wrapped at spaces, its continuation lines indented by `hang` columns
 * more than the line's own indent (to show a list item's or a callout's text under its first word).
 */
export function wrapLine(line: string, width: number, hang = 0): string[] {
  if (textWidth(line) <= width) return [line];
  const indent = /^ */.exec(line)![0].length;
  const lines = fillLines(wordsOf(line), Math.max(1, width - indent), Math.max(1, width - indent - hang));
  return lines.map((l, n) => ' '.repeat(n === 0 ? indent : indent + hang) + l);
}

/** Every line of `text` (newlines kept) fitted to `width` with wrapLine. */
export function wrapText(text: string, width: number, hang = 0): string {
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width, hang))
    .join('\n');
}

/**
 * A table of one-line cells as text at most `width` columns wide, the first layout that fits: natural; for a
 * table of a few rows, turned so each row is a column; its cells wrapped at spaces (headers too) within
 * narrowed columns, the fewest lines a row takes first (two spaces apart, then one), the table as it is
 * before it turned; else each row as `header: value` lines. No wrapped cell takes more than MAX_ROW_LINES lines.
 */
export function fitTable(rows: readonly (readonly string[])[], align: readonly (Align | undefined)[], width: number): string {
  const few = rows.length - 1 <= MAX_TURNED;
  const turned = few ? turn(rows) : [];
  const plain = natural(rows, align, width) ?? (few ? natural(turned, [], width) : undefined);
  if (plain !== undefined) return plain;
  // The fewest lines a row takes wins: rows of 3 lines with one space between columns read better than rows
  // of 5 with two. A table turned comes after: its rows are the table's columns.
  for (const [table, its] of few ? ([[rows, align], [turned, []]] as const) : ([[rows, align]] as const)) {
    const columns = columnsOf(table);
    for (let lines = 2; lines <= MAX_ROW_LINES; lines++) {
      const widths = columns.map((c) => narrowest(c, lines));
      const text = wrapped(table, columns, widths, its, width, GAP) ?? wrapped(table, columns, widths, its, width, ' ');
      if (text !== undefined) return text;
    }
  }
  return stacked(rows, width);
}

/** Rows of at most this many (beside the header) may be turned into columns. */
const MAX_TURNED = 6;

/** The most lines a wrapped cell may take. */
const MAX_ROW_LINES = 5;

function naturalWidths(rows: readonly (readonly string[])[]): number[] {
  return rows[0]!.map((_, i) => rows.reduce((w, r) => Math.max(w, textWidth(r[i] ?? '')), 0));
}

/** The table as it is, if it fits. */
function natural(rows: readonly (readonly string[])[], align: readonly (Align | undefined)[], width: number): string | undefined {
  const widths = naturalWidths(rows);
  if (sum(widths) + GAP.length * (widths.length - 1) > width) return undefined;
  return rows.map((r) => layoutRow(r.map((c) => [c]), widths, align, GAP)).join('\n') + '\n';
}

/** A column's cells as words, its natural width and its longest word: read once for every layout tried. */
interface Column {
  cells: string[][];
  natural: number;
  least: number;
}

function columnsOf(rows: readonly (readonly string[])[]): Column[] {
  return naturalWidths(rows).map((natural, i) => {
    const cells = rows.map((r) => wordsOf(r[i] ?? ''));
    const least = cells.reduce((w, words) => words.reduce((m, word) => Math.max(m, textWidth(word)), w), 0);
    return { cells, natural, least: Math.min(least, natural) };
  });
}

/**
 * The table with its cells wrapped within columns of `narrow` widths, `gap` apart, if that fits; the room
 * left widens the columns furthest from their natural width, so fewer of their cells wrap.
 */
function wrapped(rows: readonly (readonly string[])[], columns: readonly Column[], narrow: readonly number[], align: readonly (Align | undefined)[], width: number, gap: string): string | undefined {
  const widths = [...narrow];
  let room = width - sum(widths) - gap.length * (widths.length - 1);
  if (room < 0) return undefined;
  const short = (j: number) => columns[j]!.natural - widths[j]!;
  for (; room > 0; room--) {
    const i = widths.reduce((best, _, j) => (short(j) > short(best) ? j : best), 0);
    if (short(i) <= 0) break;
    widths[i]!++;
  }
  const cells = rows.map((r, n) => r.map((_, i) => fillLines(columns[i]!.cells[n]!, widths[i]!)));
  const [header, ...body] = cells.map((r) => layoutRow(r, widths, align, gap));
  // A rule under the header, whose words may now take several lines, so none is read as a row.
  return [header, widths.map((w) => '-'.repeat(w)).join(gap), ...body].join('\n') + '\n';
}

/** The narrowest width, at most its natural one, at which every cell of the column fills at most `lines` lines. */
function narrowest(column: Column, lines: number): number {
  const fits = (w: number) => column.cells.every((words) => fillLines(words, w).length <= lines);
  // Fewer lines at a wider column: bisection between the longest word and the natural width.
  let lo = column.least;
  let hi = column.natural;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (fits(mid)) hi = mid;
    else lo = mid + 1;
  }
  return hi;
}

/** The table turned: its headers the first column, each row a column. */
function turn(rows: readonly (readonly string[])[]): string[][] {
  return rows[0]!.map((header, i) => [header, ...rows.slice(1).map((r) => r[i] ?? '')]);
}

const sum = (ns: readonly number[]): number => ns.reduce((a, b) => a + b, 0);

/** One row of cells, each its lines, side by side: as many lines as its tallest cell. */
function layoutRow(cells: readonly string[][], widths: readonly number[], align: readonly (Align | undefined)[], gap: string): string {
  const height = cells.reduce((h, c) => Math.max(h, c.length), 1);
  const lines: string[] = [];
  for (let l = 0; l < height; l++) {
    const parts = cells.map((c, i) => {
      const text = c[l] ?? '';
      const fill = ' '.repeat(Math.max(0, widths[i]! - textWidth(text)));
      return align[i] === 'right' ? fill + text : text + fill;
    });
    lines.push(parts.join(gap).trimEnd());
  }
  return lines.join('\n');
}

/** Each row as `header: value` lines (values wrapped under their first word), a blank line between rows. */
function stacked(rows: readonly (readonly string[])[], width: number): string {
  const [headers, ...body] = rows;
  const keyWidth = Math.min(headers!.reduce((w, h) => Math.max(w, textWidth(h) + 2), 0), Math.floor(width / 3));
  const blocks = body.map((row) =>
    row
      .flatMap((value, i) => {
        const key = `${headers![i] ?? ''}:`;
        const pad = ' '.repeat(Math.max(1, keyWidth - textWidth(key)));
        const valueLines = fillLines(wordsOf(value), Math.max(1, width - keyWidth));
        // A header longer than the key column has its value on the lines below it.
        if (textWidth(key) + 1 > keyWidth) return [...wrapLine(key, width, 2), ...valueLines.filter((v) => v !== '').map((v) => ' '.repeat(keyWidth) + v)];
        return valueLines.map((v, n) => (n === 0 ? key + pad + v : ' '.repeat(keyWidth) + v).trimEnd());
      })
      .join('\n'),
  );
  return blocks.join('\n\n') + '\n';
}
