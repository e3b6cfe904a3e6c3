import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { LineCounter, parseDocument, type Document, type YAMLError } from 'yaml';
import { SuiteError, UsageError, type SuiteProblem } from '../errors/errors.js';
import { jsonErrorOffset } from './json-syntax.js';
import { positionOf, type Position } from './positions.js';
import { formatPath, problemsFromIssues, suiteErrorMap, type Problem } from './suite-issues.js';
import { duplicateIdMessage, SuiteSchema, type Suite } from './suite.js';
import { resolveSuite, type ResolvedSuite } from './resolve-suite.js';
import { MAX_SUITE_BYTES, planTooLarge } from './suite-size.js';

export interface ParsedSuite {
  /** The file's content, validated and normalized (durations in ms, lists, follow-up objects). */
  suite: Suite;
  /** Defaults merged into every item. */
  resolved: ResolvedSuite;
}

export interface LoadedSuite extends ParsedSuite {
  /** Absolute path of the file. */
  path: string;
  /** sha256 of the file's raw bytes, hex: tells whether two runs used the same suite. */
  sha256: string;
  /** The file's text as read. */
  text: string;
}

type Locate = (path: readonly PropertyKey[], at: 'key' | 'value') => Position | undefined;

interface Read {
  data: unknown;
  locate: Locate;
}

function formatOf(file: string): 'yaml' | 'json' {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.yaml' || ext === '.yml') return 'yaml';
  if (ext === '.json') return 'json';
  throw new UsageError(`${file}: unsupported suite file type "${ext || '(no extension)'}"; a suite is a .yaml, .yml or .json file`);
}

/** The key a duplicate-key error points at: quoted, or plain up to the colon. */
const KEY_TEXT = /^(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^:\s]+)/;

function yamlProblems(errors: readonly YAMLError[], source: string, counter: LineCounter, language: string): SuiteProblem[] {
  return errors.map((error) => {
    let message = error.message;
    if (error.code === 'DUPLICATE_KEY') {
      message = `duplicate key ${KEY_TEXT.exec(source.slice(error.pos[0]))?.[0] ?? ''}; each key may appear only once per object`;
    } else if (error.code === 'MULTIPLE_DOCS') {
      message = 'a suite file holds one document; remove the "---" that starts a second one';
    }
    return { ...counter.linePos(error.pos[0]), path: '', message: `invalid ${language}: ${message}` };
  });
}

function locator(doc: Document, counter: LineCounter): Locate {
  return (valuePath, at) => positionOf(doc, counter, valuePath, at);
}

function readYaml(file: string, source: string): Read {
  const counter = new LineCounter();
  // merge: `<<: *anchor` lets a suite share expect blocks between items.
  const doc = parseDocument(source, { lineCounter: counter, prettyErrors: false, merge: true });
  if (doc.errors.length > 0) throw new SuiteError(file, yamlProblems(doc.errors, source, counter, 'YAML'));
  try {
    // The limit is on expansion (uses x aliases inside the anchor), so thousands of plain merge keys
    // pass while a nested alias bomb is refused at its first use.
    return { data: doc.toJS({ maxAliasCount: 100_000 }), locate: locator(doc, counter) };
  } catch (error) {
    throw new SuiteError(file, [{ line: 1, col: 1, path: '', message: `invalid YAML: ${(error as Error).message}` }]);
  }
}

function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, col: offset - before.lastIndexOf('\n') };
}

function readJson(file: string, source: string): Read {
  let data: unknown;
  try {
    data = JSON.parse(source);
  } catch (error) {
    const offset = jsonErrorOffset(source);
    const message = (error as Error).message
      .replace(/, ".*" is not valid JSON$/s, '')
      .replace(/ in JSON at position \d+.*$/s, '')
      .replace(/[\n\r\t]/g, (c) => JSON.stringify(c).slice(1, -1));
    throw new SuiteError(file, [{ ...(offset === undefined ? {} : positionAt(source, offset)), path: '', message: `invalid JSON: ${message}` }]);
  }
  // JSON is YAML, so the YAML parser gives positions for paths; it also catches the duplicate keys JSON.parse lets through.
  const counter = new LineCounter();
  const doc = parseDocument(source, { lineCounter: counter, prettyErrors: false });
  const duplicates = doc.errors.filter((error) => error.code === 'DUPLICATE_KEY');
  if (duplicates.length > 0) throw new SuiteError(file, yamlProblems(duplicates, source, counter, 'JSON'));
  return { data, locate: doc.errors.length === 0 ? locator(doc, counter) : () => undefined };
}

function locateProblem(problem: Problem, locate: Locate): SuiteProblem {
  const position = locate(problem.path, problem.at);
  let message = problem.message;
  if (problem.duplicate) {
    const first = locate(problem.duplicate.firstUse, 'value');
    message = duplicateIdMessage(problem.duplicate.id, `${formatPath(problem.duplicate.firstUse)}${first ? ` at line ${first.line}` : ''}`);
  }
  return { ...position, path: formatPath(problem.path), message };
}

/** Parses and validates suite text; `fileName` picks the format by extension and names the file in errors. */
export function parseSuite(text: string, fileName: string): ParsedSuite {
  const format = formatOf(fileName);
  const source = text.replace(/^\uFEFF/, '');
  if (source.trim() === '' && format === 'json') throw emptyFile(fileName);
  const { data, locate } = format === 'yaml' ? readYaml(fileName, source) : readJson(fileName, source);
  if (data === null || data === undefined) throw emptyFile(fileName);
  const result = SuiteSchema.safeParse(data, { error: suiteErrorMap, reportInput: true });
  if (!result.success) {
    throw new SuiteError(fileName, problemsFromIssues(result.error.issues, SuiteSchema).map((p) => locateProblem(p, locate)));
  }
  const resolved = resolveSuite(result.data);
  const tooLarge = planTooLarge(resolved, 1);
  if (tooLarge) throw new SuiteError(fileName, [{ ...locate(['defaults', 'repeats'], 'value'), path: '', message: tooLarge }]);
  return { suite: result.data, resolved };
}

function emptyFile(file: string): SuiteError {
  return new SuiteError(file, [
    { line: 1, col: 1, path: '', message: 'the suite is empty; it needs a name and at least one question or search (see suites/example.yaml)' },
  ]);
}

function readFailure(file: string, absolute: string, error: unknown): UsageError {
  const code = (error as NodeJS.ErrnoException).code;
  const shown = file === absolute ? file : `${file} (${absolute})`;
  switch (code) {
    case 'ENOENT':
      return new UsageError(`suite file not found: ${shown}; check the path`, { cause: error });
    case 'EISDIR':
      return new UsageError(`${shown} is a directory; give the path of a suite file (.yaml, .yml or .json)`, { cause: error });
    case 'EACCES':
      return new UsageError(`cannot read suite file ${shown}: permission denied`, { cause: error });
    default:
      return new UsageError(`cannot read suite file ${shown}: ${(error as Error).message}`, { cause: error });
  }
}

/** Reads, validates and resolves a suite file; every failure is a UsageError (exit code 2). */
export async function loadSuite(file: string): Promise<LoadedSuite> {
  formatOf(file);
  const absolute = path.resolve(file);
  let bytes: Buffer;
  try {
    const handle = await open(absolute, 'r');
    try {
      // Sized before it is read: a huge file is refused without reading it.
      const { size } = await handle.stat();
      if (size > MAX_SUITE_BYTES) {
        throw new UsageError(
          `suite file ${file} is ${size.toLocaleString('en-US')} bytes; dsbench reads suites of at most ${MAX_SUITE_BYTES.toLocaleString('en-US')} bytes (${MAX_SUITE_BYTES / 1024 / 1024} MB): split it into several suites`,
        );
      }
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw readFailure(file, absolute, error);
  }
  const text = suiteText(bytes, file);
  return { ...parseSuite(text, file), path: absolute, sha256: createHash('sha256').update(bytes).digest('hex'), text };
}

/**
 * The suite's bytes as text; bytes that are not UTF-8 are refused at the first of them (file:line:col),
 * never replaced: a question would silently differ from the file (and from another run's hash of it).
 */
export function suiteText(bytes: Buffer, file: string): string {
  const text = bytes.toString('utf8');
  if (isUtf8(bytes)) return text;
  // Before the first replacement character that stands for bad bytes, every byte decoded as itself.
  let bad = text.indexOf('\ufffd');
  while (bad >= 0 && bytes.subarray(Buffer.byteLength(text.slice(0, bad))).subarray(0, 3).equals(REPLACEMENT)) bad = text.indexOf('\ufffd', bad + 1);
  const at = Math.max(bad, 0);
  const offset = Buffer.byteLength(text.slice(0, at));
  throw new SuiteError(file, [
    { ...positionAt(text, at), path: '', message: `not UTF-8 (byte 0x${bytes[offset]?.toString(16).padStart(2, '0') ?? '??'} at offset ${offset}): save the file as UTF-8` },
  ]);
}

const REPLACEMENT = Buffer.from('\ufffd', 'utf8');
