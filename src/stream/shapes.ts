import type { MatchBatch } from './batch.js';
import { hashToQuote, type Hash64 } from './hash.js';
import { UNKNOWN, resultCount, typeCode, type MatchParts } from './match-types.js';
import { latin1ToUtf8, utf8ToLatin1 } from './text.js';

// Learned match shapes: the fast path of `MatchScanner`.
//
// A server encodes its match objects from a few fixed structs, so a stream repeats a few shapes: the same keys
// in the same order, values of the same kinds, no blanks. A shape is learned from one match object (after the
// general scanner accepted it) and compiled into a short program: sticky regular expressions over the runs the
// count does not look into (V8 runs them as native code, several times faster than a loop over chars in JS),
// with steps in between for what the count needs: the repository and path strings (hashed), the arrays whose
// elements are counted, and file text (skipped by `indexOf`). A shape accepts only valid JSON of its own
// structure (string contents, numbers and the lengths of arrays vary), checked as strictly as the general
// scanner checks it, and counts exactly as the general scanner does; on anything else it fails, and the
// general scanner takes over.

// Regular expressions over bytes as latin1 text. Strings: no raw control chars, only valid escapes.
const STRING = String.raw`"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"`;
const INTEGER = '-?(?:0|[1-9][0-9]*)';
const NUMBER = String.raw`${INTEGER}(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?`;

const QUOTE = 34;
const COMMA = 44;
const LBRACKET = 91;
const RBRACKET = 93;

// Step kinds.
/** A run matched by a sticky regex. */
const REGEX = 0;
/** A short run of fixed text, compared in JS. */
const LITERAL = 1;
const REPO = 2;
const PATH = 3;
/** A string of file text, skipped by native search (see `textEnd`). */
const TEXT = 4;
/** An array whose elements are counted; each matches `re`. */
const COUNT = 5;
/** An array of objects (chunk or line matches) whose inner arrays are counted; each matches one of `elements`. */
const NESTED = 6;

// Where a count goes: the parts of `MatchParts`, and the inner count of a chunk or line match.
const CHUNK_RANGES = 0;
const LINE_RANGES = 1;
const SYMBOLS = 2;
const RANGES = 3;
const INNER = 4;

/** A compiled program: the position after the text it matched from `p`, or -1; counts go to `counts`. */
type Runner = (s: string, p: number) => number;

/** One step of a program; every step has every field, so that the interpreter sees one object shape. */
interface Step {
  kind: number;
  /** REGEX: the run. COUNT: one element (undefined: only `[]` matches). */
  re: RegExp | undefined;
  /** LITERAL: the text. */
  text: string;
  /** COUNT and NESTED: where the count goes. */
  target: number;
  /** NESTED: the programs of the element shapes. */
  elements: Runner[];
  /** NESTED: their steps, for `signature`. */
  programs: Step[][];
}

function step(kind: number, fields: Partial<Step> = {}): Step {
  return { kind, re: undefined, text: '', target: -1, elements: [], programs: [], ...fields };
}

// Runner state; a run is synchronous.
const counts = new Int32Array(5);
const repo: Hash64 = { hi: 0, lo: 0 };
const path: Hash64 = { hi: 0, lo: 0 };
const parts: MatchParts = { chunkRanges: -1, lineRanges: -1, symbols: -1, ranges: -1 };
/** First backslash at or after the last place searched in the text being scanned, or its length when none. */
let backslash = -1;

/** Forgets where the last text had its backslashes: call before scanning another text. */
export function resetShapes(): void {
  backslash = -1;
}

/** The state `resetShapes` resets, for a scan that must survive another one inside it. */
export function shapeState(): number {
  return backslash;
}

export function restoreShapeState(state: number): void {
  backslash = state;
}

/**
 * The position after the string whose contents start at `p`, or -1. Escapes are checked as in the general
 * scanner (raw control chars are not). The backslash found last is remembered across strings, so a string
 * without escapes costs one native search, and one with escapes one more a backslash.
 */
function textEnd(s: string, p: number): number {
  let quote = s.indexOf('"', p);
  for (;;) {
    if (quote < 0) return -1;
    if (backslash < p) {
      backslash = s.indexOf('\\', p);
      if (backslash < 0) backslash = s.length;
    }
    if (backslash > quote) return quote + 1;
    const at = backslash;
    const c = s.charCodeAt(at + 1);
    if (c === 117) {
      for (let i = at + 2; i < at + 6; i++) {
        const h = s.charCodeAt(i);
        if (!((h >= 48 && h <= 57) || (h >= 65 && h <= 70) || (h >= 97 && h <= 102))) return -1;
      }
      p = at + 6;
    } else if (c === 34 || c === 92 || c === 47 || c === 98 || c === 102 || c === 110 || c === 114 || c === 116) {
      p = at + 2;
    } else {
      return -1;
    }
    // An escaped quote is not the end: search again past it.
    if (quote < p) quote = s.indexOf('"', p);
  }
}

/** A name string at `p`, hashed into `out`; -1 when it has an escape (left to the general scanner, which resolves it). */
function nameEnd(s: string, p: number, out: Hash64): number {
  if (s.charCodeAt(p) !== QUOTE) return -1;
  const end = hashToQuote(s, p + 1, out);
  return end < 0 ? -1 : end + 1;
}

/** The array at `p`, each element matching `re`; its length goes to `counts[target]`. */
function countedEnd(s: string, p: number, re: RegExp | undefined, target: number): number {
  if (s.charCodeAt(p) !== LBRACKET) return -1;
  if (s.charCodeAt(p + 1) === RBRACKET) {
    counts[target] = 0;
    return p + 2;
  }
  if (re === undefined) return -1;
  let n = 0;
  p++;
  for (;;) {
    re.lastIndex = p;
    if (!re.test(s)) return -1;
    p = re.lastIndex;
    n++;
    const c = s.charCodeAt(p++);
    if (c === RBRACKET) break;
    if (c !== COMMA) return -1;
  }
  counts[target] = n;
  return p;
}

/** The array at `p`, each element matching one of `elements`; the sum of their inner counts goes to `counts[target]`. */
function nestedEnd(s: string, p: number, elements: readonly Runner[], target: number): number {
  if (s.charCodeAt(p) !== LBRACKET) return -1;
  if (s.charCodeAt(p + 1) === RBRACKET) {
    counts[target] = 0;
    return p + 2;
  }
  let n = 0;
  p++;
  for (;;) {
    let q = -1;
    for (let i = 0; i < elements.length && q < 0; i++) {
      counts[INNER] = 0;
      q = elements[i]!(s, p);
    }
    if (q < 0) return -1;
    n += counts[INNER]!;
    p = q;
    const c = s.charCodeAt(p++);
    if (c === RBRACKET) break;
    if (c !== COMMA) return -1;
  }
  counts[target] = n;
  return p;
}

/** Runs `steps` from `p`: the interpreter, for when code cannot be generated (see `compile`). */
function run(steps: readonly Step[], s: string, p: number): number {
  for (let i = 0; i < steps.length && p >= 0; i++) {
    const st = steps[i]!;
    switch (st.kind) {
      case REGEX: {
        const re = st.re!;
        re.lastIndex = p;
        p = re.test(s) ? re.lastIndex : -1;
        break;
      }
      case LITERAL: {
        const text = st.text;
        for (let k = 0; k < text.length; k++) {
          if (s.charCodeAt(p + k) !== text.charCodeAt(k)) return -1;
        }
        p += text.length;
        break;
      }
      case REPO:
        p = nameEnd(s, p, repo);
        break;
      case PATH:
        p = nameEnd(s, p, path);
        break;
      case TEXT:
        p = s.charCodeAt(p) === QUOTE ? textEnd(s, p + 1) : -1;
        break;
      case COUNT:
        p = countedEnd(s, p, st.re, st.target);
        break;
      default:
        p = nestedEnd(s, p, st.elements, st.target);
    }
  }
  return p;
}

const helpers = { textEnd, nameEnd, countedEnd, nestedEnd, repo, path };
/** Cleared when the runtime forbids code generation (`--disallow-code-generation-from-strings`). */
let generate = true;

/** Forces the interpreter (for tests). */
export function useInterpreter(interpret: boolean): void {
  generate = !interpret;
}

/**
 * The program as a function of its own: straight-line JS with the regexes and helpers as constants, which V8
 * compiles and inlines as one unit (the interpreter costs about a fifth more). The generated source holds only
 * step kinds, indices and char codes: none of the stream's text.
 */
function compile(steps: readonly Step[]): Runner {
  if (!generate) return (s, p) => run(steps, s, p);
  const regexes: (RegExp | undefined)[] = [];
  const nested: Runner[][] = [];
  let body = '';
  for (const st of steps) {
    switch (st.kind) {
      case REGEX: {
        const r = `r${regexes.push(st.re) - 1}`;
        body += `${r}.lastIndex = p; if (!${r}.test(s)) return -1; p = ${r}.lastIndex;\n`;
        break;
      }
      case LITERAL: {
        const tests = [...st.text].map((c, k) => `s.charCodeAt(p + ${k}) !== ${c.charCodeAt(0)}`);
        body += `if (${tests.join(' || ')}) return -1; p += ${st.text.length};\n`;
        break;
      }
      case REPO:
      case PATH:
        body += `p = nameEnd(s, p, ${st.kind === REPO ? 'repo' : 'path'}); if (p < 0) return -1;\n`;
        break;
      case TEXT:
        body += `if (s.charCodeAt(p) !== ${QUOTE}) return -1; p = textEnd(s, p + 1); if (p < 0) return -1;\n`;
        break;
      case COUNT:
        body += `p = countedEnd(s, p, r${regexes.push(st.re) - 1}, ${st.target}); if (p < 0) return -1;\n`;
        break;
      default:
        body += `p = nestedEnd(s, p, n${nested.push(st.elements) - 1}, ${st.target}); if (p < 0) return -1;\n`;
    }
  }
  const constants = [...regexes.map((_, i) => `r${i} = R[${i}]`), ...nested.map((_, i) => `n${i} = N[${i}]`)];
  const source =
    `'use strict';\nconst { textEnd, nameEnd, countedEnd, nestedEnd, repo, path } = H;\n` +
    (constants.length > 0 ? `const ${constants.join(', ')};\n` : '') +
    `return function shape(s, p) {\n${body}return p;\n};`;
  try {
    return new Function('R', 'N', 'H', source)(regexes, nested, helpers) as Runner;
  } catch (error) {
    if (!(error instanceof EvalError)) throw error;
    generate = false;
    return (s, p) => run(steps, s, p);
  }
}

/** A learned match shape: its type and its program. */
export class Shape {
  constructor(
    private readonly type: number,
    private readonly program: Runner,
    private readonly hasRepo: boolean,
    private readonly hasPath: boolean,
  ) {}

  /** Adds the match object at `p` to `batch` when it has this shape; returns the position after it, or -1. */
  match(s: string, p: number, batch: MatchBatch): number {
    counts[CHUNK_RANGES] = counts[LINE_RANGES] = counts[SYMBOLS] = counts[RANGES] = -1;
    const end = this.program(s, p);
    if (end < 0) return -1;
    parts.chunkRanges = counts[CHUNK_RANGES]!;
    parts.lineRanges = counts[LINE_RANGES]!;
    parts.symbols = counts[SYMBOLS]!;
    parts.ranges = counts[RANGES]!;
    batch.addMatch(this.type, resultCount(this.type, parts), this.hasRepo ? repo : undefined, this.hasPath ? path : undefined);
    return end;
  }
}

// Learning.

/** Most distinct element shapes in one array, and longest regex source, of a shape worth learning. */
const MAX_ALTERNATIVES = 4;
const MAX_SOURCE = 16_384;
const MAX_DEPTH = 16;
/** Literal runs up to this length are compared in JS, longer ones by a regex. */
const MAX_LITERAL = 6;
/** Keys whose string values are file text: long, so skipped by native search (see `textEnd`). */
const TEXT_KEYS = new Set(['content', 'line']);

class TooIrregular extends Error {}

/** Regex source matching exactly `text`. */
function literalSource(text: string): string {
  return text.replace(/[^A-Za-z0-9_]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Builds a program, merging consecutive pattern parts into one step. */
class ProgramBuilder {
  private readonly steps: Step[] = [];
  private source = '';
  /** The pending parts as plain text, while they all are literal. */
  private text: string | undefined = '';

  literal(text: string): void {
    this.source += literalSource(text);
    if (this.text !== undefined) this.text += text;
  }

  /** A value the count does not look into, as a pattern. */
  value(v: unknown, depth: number): void {
    this.source += valueSource(v, depth);
    this.text = undefined;
  }

  add(st: Step): void {
    this.flush();
    this.steps.push(st);
  }

  finish(): Step[] {
    this.flush();
    return this.steps;
  }

  private flush(): void {
    if (this.source === '') return;
    if (this.text !== undefined && this.text.length <= MAX_LITERAL) {
      this.steps.push(step(LITERAL, { text: this.text }));
    } else {
      if (this.source.length > MAX_SOURCE) throw new TooIrregular();
      this.steps.push(step(REGEX, { re: new RegExp(this.source, 'y') }));
    }
    this.source = '';
    this.text = '';
  }
}

/** Key as in compact JSON, in bytes as latin1. */
function keyText(key: string): string {
  return `"${utf8ToLatin1(key)}":`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function valueSource(v: unknown, depth: number): string {
  if (depth > MAX_DEPTH) throw new TooIrregular();
  if (v === null || v === true || v === false) return String(v);
  switch (typeof v) {
    case 'number':
      return Number.isInteger(v) ? INTEGER : NUMBER;
    case 'string':
      return STRING;
    case 'object': {
      if (Array.isArray(v)) {
        const element = elementSource(v, depth);
        return element === undefined ? String.raw`\[\]` : String.raw`\[${element}(?:,${element})*\]`;
      }
      const fields = Object.entries(v as Record<string, unknown>).map(([k, x]) => literalSource(keyText(k)) + valueSource(x, depth + 1));
      return String.raw`\{${fields.join(',')}\}`;
    }
    default:
      throw new TooIrregular();
  }
}

/** A pattern for any element of `items` (the distinct element shapes, as alternatives); undefined when empty. */
function elementSource(items: readonly unknown[], depth: number): string | undefined {
  const alternatives = [...new Set(items.map((x) => valueSource(x, depth + 1)))];
  if (alternatives.length > MAX_ALTERNATIVES) throw new TooIrregular();
  return alternatives.length === 0 ? undefined : `(?:${alternatives.join('|')})`;
}

function countStep(items: readonly unknown[], target: number, depth: number): Step {
  const element = elementSource(items, depth);
  return step(COUNT, { re: element === undefined ? undefined : new RegExp(element, 'y'), target });
}

function nestedStep(items: readonly unknown[], inner: string, target: number): Step {
  const programs = elementPrograms(items, inner);
  return step(NESTED, { programs, elements: programs.map(compile), target });
}

/** Programs of the distinct elements of a chunk or line matches array; `inner` is the key whose array is counted. */
function elementPrograms(items: readonly unknown[], inner: string): Step[][] {
  const programs = new Map<string, Step[]>();
  for (const item of items) {
    const b = new ProgramBuilder();
    if (isRecord(item)) {
      b.literal('{');
      Object.entries(item).forEach(([k, x], i) => {
        b.literal(`${i > 0 ? ',' : ''}${keyText(k)}`);
        if (k === inner && Array.isArray(x)) b.add(countStep(x, INNER, 2));
        else if (TEXT_KEYS.has(k) && typeof x === 'string') b.add(step(TEXT));
        else b.value(x, 2);
      });
      b.literal('}');
    } else {
      b.value(item, 2);
    }
    const program = b.finish();
    programs.set(signature(program), program);
  }
  if (programs.size > MAX_ALTERNATIVES) throw new TooIrregular();
  return [...programs.values()];
}

function signature(steps: readonly Step[]): string {
  return steps.map((st) => `${st.kind}:${st.re?.source ?? ''}:${st.text}:${st.target}:${st.programs.map(signature).join('|')}`).join(';');
}

/**
 * The shape of one match object, `text` (bytes as latin1, valid JSON), or undefined when it is not worth a
 * shape: an unknown type, too irregular. A shape learned from text it does not fit (blanks, escapes in keys
 * or in the type, duplicate keys, keys that JS orders differently) does not match that text: the caller must
 * check that the shape matches `text` exactly and counts it as the general scanner does.
 */
export function learnShape(text: string): Shape | undefined {
  let value: unknown;
  try {
    value = JSON.parse(latin1ToUtf8(text));
  } catch {
    return undefined;
  }
  if (!isRecord(value) || typeof value.type !== 'string') return undefined;
  const type = typeCode(value.type, 0, value.type.length);
  if (type === UNKNOWN) return undefined;
  try {
    const b = new ProgramBuilder();
    let hasRepo = false;
    let hasPath = false;
    b.literal('{');
    Object.entries(value).forEach(([k, v], i) => {
      b.literal(`${i > 0 ? ',' : ''}${keyText(k)}`);
      if (k === 'type') {
        b.literal(`"${utf8ToLatin1(v as string)}"`);
      } else if (k === 'repository' && typeof v === 'string') {
        b.add(step(REPO));
        hasRepo = true;
      } else if (k === 'path' && typeof v === 'string') {
        b.add(step(PATH));
        hasPath = true;
      } else if (k === 'chunkMatches' && Array.isArray(v)) {
        b.add(nestedStep(v, 'ranges', CHUNK_RANGES));
      } else if (k === 'lineMatches' && Array.isArray(v)) {
        b.add(nestedStep(v, 'offsetAndLengths', LINE_RANGES));
      } else if (k === 'symbols' && Array.isArray(v)) {
        b.add(countStep(v, SYMBOLS, 1));
      } else if (k === 'ranges' && Array.isArray(v)) {
        b.add(countStep(v, RANGES, 1));
      } else {
        b.value(v, 1);
      }
    });
    b.literal('}');
    return new Shape(type, compile(b.finish()), hasRepo, hasPath);
  } catch (error) {
    if (error instanceof TooIrregular || error instanceof SyntaxError) return undefined;
    throw error;
  }
}
