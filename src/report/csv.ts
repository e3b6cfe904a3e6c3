import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { redact } from '../redact.js';
import { partialOf } from './whole-file.js';

// CSV files of every report: UTF-8, comma-separated, a header row, records ended by \n, fields quoted
// only when they must be (comma, quote, CR or LF inside; RFC 4180). Rows are handed over one by one (or
// pulled from a database iterator) and written a chunk at a time, so memory does not grow with the row
// count. Written here, not with csv-stringify: its per-field options and a stream chunk per row cost four
// times this loop, a quarter of a whole export (test/report/csv.test.ts checks both write the same bytes; a
// lone CR, which csv-stringify leaves bare and spreadsheets read as a line end, is quoted here).

export type Cell = string | number | boolean | null | undefined;

/** One column: its stable header name and how a row gives its cell. */
export interface Column<Row> {
  name: string;
  value: (row: Row) => Cell;
}

/**
 * A text cell a spreadsheet would run as a formula (first character `=`, `+`, `-`, `@`, tab or CR) gets a
 * leading `'`, which spreadsheets show as text; so does text already starting with `'`, so that no two texts
 * are written alike (`=x` is `'=x`, `'=x` is `''=x`: drop one leading `'` of a prefixed cell to read it back).
 * Numbers are written as numbers and never prefixed (so -3 stays a number); a string that looks like a
 * number ("-3") is text and is prefixed.
 */
export function neutralize(text: string): string {
  const first = text.charCodeAt(0);
  // = + - @ tab CR ' (NaN, for empty text, is none of them)
  return first === 61 || first === 43 || first === 45 || first === 64 || first === 9 || first === 13 || first === 39 ? `'${text}` : text;
}

/** A cell as written: numbers as numbers (NaN and infinities empty), booleans true/false, text neutralized. */
export function cell(value: Cell): string | number {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? value : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return neutralize(value);
}

/** Free text from the record: redacted once more on the way out (nothing secret is stored, by design). */
export function text(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : redact(value);
}

export interface CsvOptions {
  /** Start the file with a UTF-8 byte order mark (Excel needs it to read UTF-8). */
  bom?: boolean;
}

const NEEDS_QUOTES = /[",\r\n]/;

/** A field as RFC 4180 writes it: in double quotes, its quotes doubled, when it holds a comma, quote, CR or LF. */
export function csvField(value: string | number): string {
  if (typeof value === 'number') return String(value);
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** Characters gathered before each write. */
const CHUNK = 256 * 1024;

/**
 * A CSV file written as rows are handed to it (`row`), a chunk at a time, into `<file>.partial`; `end`
 * writes the rest, closes it and renames it to `file`, so a kill mid-write never leaves a cut file that
 * reads as whole. Writes are synchronous, as the database reads that feed them are: nothing else runs meanwhile.
 */
export class CsvFile<Row> {
  private readonly fd: number;
  private chunk: string;
  /** Each chunk is encoded into one buffer, reused (a new buffer a chunk cost a third more); at most 3 bytes a UTF-16 unit. */
  private bytes = Buffer.allocUnsafe(3 * CHUNK);
  /** Data rows written. */
  count = 0;

  constructor(
    readonly file: string,
    private readonly columns: ReadonlyArray<Column<Row>>,
    options: CsvOptions = {},
  ) {
    this.fd = openSync(partialOf(file), 'w');
    this.chunk = `${options.bom === true ? '\ufeff' : ''}${columns.map((c) => csvField(c.name)).join(',')}\n`;
  }

  row(row: Row): void {
    this.count++;
    const columns = this.columns;
    let line = '';
    for (let i = 0; i < columns.length; i++) line += (i === 0 ? '' : ',') + csvField(cell(columns[i]!.value(row)));
    this.chunk += `${line}\n`;
    if (this.chunk.length >= CHUNK) this.flush();
  }

  /** Writes what is left, closes the file and gives it its name; the file is closed even when that write fails. */
  end(): void {
    try {
      this.flush();
    } catch (error) {
      this.abandon();
      throw error;
    }
    closeSync(this.fd);
    renameSync(partialOf(this.file), this.file);
  }

  /** Closes and removes the unfinished file after a failure (the run's records are whole: report again). */
  abandon(): void {
    try {
      closeSync(this.fd);
    } finally {
      rmSync(partialOf(this.file), { force: true });
    }
  }

  private flush(): void {
    if (3 * this.chunk.length > this.bytes.length) this.bytes = Buffer.allocUnsafe(3 * this.chunk.length);
    const length = this.bytes.write(this.chunk, 0, 'utf8');
    this.chunk = '';
    // A write may take fewer bytes than given.
    for (let done = 0; done < length; ) done += writeSync(this.fd, this.bytes, done, length - done);
  }
}

/** Writes `rows` into `file` as CSV with a header row; resolves with the number of data rows. */
export async function writeCsv<Row>(file: string, columns: ReadonlyArray<Column<Row>>, rows: Iterable<Row> | AsyncIterable<Row>, options: CsvOptions = {}): Promise<number> {
  const out = new CsvFile(file, columns, options);
  try {
    if (Symbol.asyncIterator in rows) {
      for await (const row of rows) out.row(row);
    } else {
      for (const row of rows) out.row(row);
    }
  } catch (error) {
    out.abandon();
    throw error;
  }
  out.end();
  return out.count;
}

/** The header names of a column list (for tests and documentation). */
export function headers<Row>(columns: ReadonlyArray<Column<Row>>): string[] {
  return columns.map((c) => c.name);
}
