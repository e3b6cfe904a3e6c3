import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { redact } from '../http/redact.js';

// CSV files of every report: UTF-8, comma-separated, a header row, records ended by \n, fields quoted
// only when they must be (comma, quote, CR or LF inside). Written as a stream: rows are pulled from a
// (database) iterator only as fast as the file takes them, so memory does not grow with the row count.

export type Cell = string | number | boolean | null | undefined;

/** One column: its stable header name and how a row gives its cell. */
export interface Column<Row> {
  name: string;
  value: (row: Row) => Cell;
}

const FORMULA_START = new Set(['=', '+', '-', '@', '\t', '\r']);

/**
 * A text cell a spreadsheet would run as a formula (first character `=`, `+`, `-`, `@`, tab or CR) gets a
 * leading `'`, which spreadsheets show as text. Numbers are written as numbers and never prefixed (so
 * -3 stays a number); a string that looks like a number ("-3") is text and is prefixed.
 */
export function neutralize(text: string): string {
  return text.length > 0 && FORMULA_START.has(text[0]!) ? `'${text}` : text;
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

/** Streams `rows` into `file` as CSV with a header row; resolves with the number of data rows. */
export async function writeCsv<Row>(file: string, columns: ReadonlyArray<Column<Row>>, rows: Iterable<Row> | AsyncIterable<Row>, options: CsvOptions = {}): Promise<number> {
  let count = 0;
  function* records(): Generator<Array<string | number>> {
    for (const row of rows as Iterable<Row>) {
      count++;
      yield columns.map((c) => cell(c.value(row)));
    }
  }
  async function* asyncRecords(): AsyncGenerator<Array<string | number>> {
    for await (const row of rows as AsyncIterable<Row>) {
      count++;
      yield columns.map((c) => cell(c.value(row)));
    }
  }
  const source = Symbol.asyncIterator in rows ? asyncRecords() : records();
  await pipeline(
    Readable.from(source, { objectMode: true, highWaterMark: 256 }),
    stringify({ header: true, columns: columns.map((c) => c.name), bom: options.bom === true, record_delimiter: 'unix' }),
    createWriteStream(file, { encoding: 'utf8' }),
  );
  return count;
}

/** The header names of a column list (for tests and documentation). */
export function headers<Row>(columns: ReadonlyArray<Column<Row>>): string[] {
  return columns.map((c) => c.name);
}
