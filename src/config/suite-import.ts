import path from 'node:path';
import { parse as parseCsv, CsvError } from 'csv-parse/sync';
import { LineCounter, parseDocument, stringify } from 'yaml';
import { jsonErrorOffset } from './json-syntax.js';
import { positionOf, type Position } from './positions.js';
import { SuiteError, type SuiteProblem } from '../errors/errors.js';
import { parseSuite } from './load-suite.js';
import { formatPath, problemsFromIssues, suiteErrorMap, unknownField } from './suite-issues.js';
import { QuestionExpectSchema, QuestionSchema } from './suite.js';

/*
 * `dsbench suite import`: questions kept in a spreadsheet (CSV with a header row) or in JSONL (an object
 * per line) become a suite file. Each row is checked with the suite's own schema; every bad row is
 * reported at once, at its line and column, before anything is written.
 */

export type ImportFormat = 'csv' | 'jsonl';

const EXPECT_FIELDS = Object.keys(QuestionExpectSchema.shape);
const LIST_FIELDS = new Set(['tags', 'followups', 'contains', 'notContains', 'matches', 'sourcesInclude', 'cites']);
const NUMBER_FIELDS = new Set(['minScore', 'minCitationValidity', 'maxCredits', 'maxTotalTokens', 'maxSeconds']);
/** Columns (CSV) or keys (JSONL) a row may have: the question's own fields and those of its expect. */
export const IMPORT_FIELDS: readonly string[] = ['id', 'question', 'tags', 'followups', 'expect', ...EXPECT_FIELDS];

export function importFormatOf(file: string): ImportFormat | undefined {
  const ext = path.extname(file).toLowerCase();
  return ext === '.csv' ? 'csv' : ext === '.jsonl' || ext === '.ndjson' ? 'jsonl' : undefined;
}

/** One row of the source, as the question it describes, with where each of its fields is. */
interface Row {
  line: number;
  fields: Record<string, unknown>;
  /** Where a field path of the question (as zod reports it) is in the source. */
  locate(questionPath: readonly PropertyKey[]): Position;
}

/** A question object from a row's fields: expect fields given at the top level go under `expect`. */
function questionOf(fields: Record<string, unknown>): Record<string, unknown> {
  const question: Record<string, unknown> = {};
  const expect: Record<string, unknown> = typeof fields.expect === 'object' && fields.expect !== null ? { ...(fields.expect as object) } : {};
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'expect') continue;
    if (EXPECT_FIELDS.includes(key)) expect[key] = value;
    else question[key] = value;
  }
  if (Object.keys(expect).length > 0 || fields.expect !== undefined) question.expect = fields.expect !== undefined && typeof fields.expect !== 'object' ? fields.expect : expect;
  return question;
}

/** The field of the row a question path comes from: `expect.minScore` from a `minScore` column or key. */
function sourcePath(fields: Record<string, unknown>, questionPath: readonly PropertyKey[]): PropertyKey[] {
  if (questionPath[0] === 'expect' && typeof questionPath[1] === 'string' && questionPath[1] in fields) return questionPath.slice(1);
  return [...questionPath];
}

/** A CSV cell in the type its field takes: lists one per line (tags also split on commas and spaces), numbers as numbers. */
function cellValue(field: string, text: string): unknown {
  if (LIST_FIELDS.has(field)) {
    const parts = (field === 'tags' ? text.split(/[\s,;]+/) : text.split(/\r?\n/)).map((p) => p.trim()).filter(Boolean);
    return field === 'tags' || field === 'followups' || parts.length > 1 ? parts : parts[0];
  }
  if (NUMBER_FIELDS.has(field)) return /^\s*-?\d+(\.\d+)?\s*$/.test(text) ? Number(text) : text;
  return text;
}

function csvRows(text: string, problems: SuiteProblem[]): Row[] {
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    records = parseCsv(text, { bom: true, info: true, relax_column_count: true, skip_empty_lines: false }) as unknown as typeof records;
  } catch (error) {
    const line = error instanceof CsvError ? (error as CsvError & { lines?: number }).lines : undefined;
    problems.push({ ...(line === undefined ? {} : { line, col: 1 }), path: '', message: `invalid CSV: ${(error as Error).message}` });
    return [];
  }
  const [header, ...body] = records;
  if (!header) return [];
  const columns = header.record.map((c) => c.trim());
  columns.forEach((column, i) => {
    if (!IMPORT_FIELDS.includes(column) || column === 'expect') {
      problems.push({ line: 1, col: i + 1, path: column, message: `${unknownField(column, IMPORT_FIELDS.filter((f) => f !== 'expect')).replace('field', 'column')}` });
    }
  });
  for (const required of ['id', 'question']) {
    if (!columns.includes(required)) problems.push({ line: 1, col: 1, path: '', message: `missing column "${required}"; the header row names the columns: ${IMPORT_FIELDS.filter((f) => f !== 'expect').join(', ')}` });
  }
  const rows: Row[] = [];
  let previousEnd = header.info.lines;
  for (const { record, info } of body) {
    const line = previousEnd + 1;
    previousEnd = info.lines;
    if (record.every((cell) => cell.trim() === '')) continue;
    if (record.length !== columns.length) {
      problems.push({ line, col: 1, path: '', message: `the row has ${record.length} fields, the header ${columns.length}; quote a cell that holds a comma` });
      continue;
    }
    const fields: Record<string, unknown> = {};
    record.forEach((cell, i) => {
      const column = columns[i]!;
      if (cell.trim() !== '' && IMPORT_FIELDS.includes(column)) fields[column] = cellValue(column, cell);
    });
    rows.push({
      line,
      fields,
      locate: (questionPath) => {
        const column = String(sourcePath(fields, questionPath)[0] ?? '');
        const index = columns.indexOf(column);
        return { line, col: index >= 0 ? index + 1 : 1 };
      },
    });
  }
  return rows;
}

function jsonlRows(text: string, problems: SuiteProblem[]): Row[] {
  const rows: Row[] = [];
  text
    .replace(/^\uFEFF/, '')
    .split('\n')
    .forEach((source, i) => {
      const line = i + 1;
      if (source.trim() === '') return;
      let fields: unknown;
      try {
        fields = JSON.parse(source);
      } catch (error) {
        const offset = jsonErrorOffset(source);
        problems.push({ line, col: (offset ?? 0) + 1, path: '', message: `invalid JSON: ${(error as Error).message.replace(/ in JSON at position \d+.*$/s, '')}` });
        return;
      }
      if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
        problems.push({ line, col: 1, path: '', message: 'each line must be a JSON object such as {"id": "q1", "question": "Where is ...?"}' });
        return;
      }
      const record = fields as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        if (!IMPORT_FIELDS.includes(key)) problems.push({ line, col: source.indexOf(JSON.stringify(key)) + 1, path: key, message: unknownField(key, [...IMPORT_FIELDS]) });
      }
      const counter = new LineCounter();
      const doc = parseDocument(source, { lineCounter: counter });
      rows.push({
        line,
        fields: Object.fromEntries(Object.entries(record).filter(([key]) => IMPORT_FIELDS.includes(key))),
        locate: (questionPath) => ({ line, col: positionOf(doc, counter, sourcePath(record, questionPath), 'value').col }),
      });
    });
  return rows;
}

export interface ImportedSuite {
  /** The suite file's text: YAML with the `$schema` line. */
  yaml: string;
  questions: number;
}

/**
 * Reads rows (`format`) into a suite named `name`; every bad row is a problem of one SuiteError, each at
 * `file:line:col` (for CSV, the column's number). `schemaPath` is written in the `$schema` line.
 */
export function importSuite(text: string, file: string, format: ImportFormat, name: string, schemaPath: string): ImportedSuite {
  const problems: SuiteProblem[] = [];
  const rows = format === 'csv' ? csvRows(text, problems) : jsonlRows(text, problems);
  const questions: Array<Record<string, unknown>> = [];
  const firstLine = new Map<string, number>();
  for (const row of rows) {
    const question = questionOf(row.fields);
    const result = QuestionSchema.safeParse(question, { error: suiteErrorMap, reportInput: true });
    if (!result.success) {
      for (const p of problemsFromIssues(result.error.issues, QuestionSchema)) {
        problems.push({ ...row.locate(p.path), path: formatPath(sourcePath(row.fields, p.path)), message: p.message });
      }
      continue;
    }
    const first = firstLine.get(result.data.id);
    if (first !== undefined) {
      problems.push({ ...row.locate(['id']), path: 'id', message: `duplicate id "${result.data.id}", first used on line ${first}; ids must be unique` });
      continue;
    }
    firstLine.set(result.data.id, row.line);
    questions.push(question);
  }
  if (problems.length === 0 && questions.length === 0) problems.push({ line: 1, col: 1, path: '', message: `no questions: ${format === 'csv' ? 'a header row then one row per question' : 'one JSON object per line'}, with at least id and question` });
  if (problems.length > 0) throw new SuiteError(file, problems);
  const body = stringify({ name, description: `Imported from ${path.basename(file)} by dsbench suite import.`, questions }, { lineWidth: 0 });
  const yaml = `# yaml-language-server: $schema=${schemaPath}\n${body}`;
  // What is written must load: the suite-wide checks (and any mapping slip) are caught here, not at the next run.
  parseSuite(yaml, `${name}.yaml`);
  return { yaml, questions: questions.length };
}

/** A suite name from a file name: lower case, with only letters, digits, ".", "_" and "-". */
export function suiteNameFor(file: string): string {
  const base = path
    .basename(file, path.extname(file))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return base || 'imported';
}
