import { MatchBatch } from './batch.js';
import { hashRange, type Hash64 } from './hash.js';
import { NO_TYPE, UNKNOWN, resultCount, typeCode, type MatchParts } from './match-types.js';
import { learnShape, resetShapes, restoreShapeState, shapeState, type Shape } from './shapes.js';
import { latin1ToUtf8, utf8ToLatin1 } from './text.js';

// The hot path of the whole client: plain functions over (text, position) and a little module state, no
// allocation per token; failure is an exception because it is rare and unwinds any depth at once.

const QUOTE = 34;
const COMMA = 44;
const COLON = 58;
const LBRACKET = 91;
const RBRACKET = 93;
const LBRACE = 123;
const RBRACE = 125;

// Keys the counting rule needs.
const K_OTHER = 0;
const K_TYPE = 1;
const K_REPOSITORY = 2;
const K_PATH = 3;
const K_CHUNK_MATCHES = 4;
const K_LINE_MATCHES = 5;
const K_SYMBOLS = 6;
const K_RANGES = 7;
const K_OFFSETS = 8;

/** Thrown when the text is not a JSON array the scanner handles; caught in `scan`. */
const NOT_UNDERSTOOD = new Error('matches text not understood');

// Scanner state; one scan runs at a time (a scan is synchronous).
/** First backslash at or after the last place searched, or the text length when there is none. */
let backslash = -1;
/** Whether the string just read had escapes. */
let escaped = false;
/** Element count of the array just read (or sum of inner lengths for `nestedEnd`). */
let elements = 0;

function fail(): never {
  throw NOT_UNDERSTOOD;
}

function keyCode(s: string, start: number, end: number): number {
  const c = s.charCodeAt(start);
  switch (end - start) {
    case 4:
      if (c === 116) return s.startsWith('type', start) ? K_TYPE : K_OTHER;
      return c === 112 && s.startsWith('path', start) ? K_PATH : K_OTHER;
    case 6:
      return c === 114 && s.startsWith('ranges', start) ? K_RANGES : K_OTHER;
    case 7:
      return c === 115 && s.startsWith('symbols', start) ? K_SYMBOLS : K_OTHER;
    case 10:
      return c === 114 && s.startsWith('repository', start) ? K_REPOSITORY : K_OTHER;
    case 11:
      return c === 108 && s.startsWith('lineMatches', start) ? K_LINE_MATCHES : K_OTHER;
    case 12:
      return c === 99 && s.startsWith('chunkMatches', start) ? K_CHUNK_MATCHES : K_OTHER;
    case 16:
      return c === 111 && s.startsWith('offsetAndLengths', start) ? K_OFFSETS : K_OTHER;
    default:
      return K_OTHER;
  }
}

/**
 * A string literal `s[start - 1, end]` with its escapes resolved, as the bytes an unescaped literal would
 * carry: `"caf\u00e9"` and `"café"` then hash alike.
 */
function canonical(s: string, start: number, end: number): string {
  return utf8ToLatin1(JSON.parse(latin1ToUtf8(s.slice(start - 1, end + 1))) as string);
}

/** Skips blanks; the first test nearly always ends it, since Go's encoder emits none. */
function ws(s: string, p: number): number {
  return s.charCodeAt(p) > 32 ? p : blanksEnd(s, p);
}

function blanksEnd(s: string, p: number): number {
  let c = s.charCodeAt(p);
  while (c === 32 || c === 10 || c === 13 || c === 9) c = s.charCodeAt(++p);
  return p;
}

/** Index of the closing quote of the string whose first char is at `p`; sets `escaped`. */
function stringEnd(s: string, p: number): number {
  escaped = false;
  // indexOf beats a char loop even for short keys (measured); `backslash` is cached so that the search
  // for escapes does not rescan the rest of the text for each string.
  for (;;) {
    const quote = s.indexOf('"', p);
    if (quote < 0) fail();
    if (backslash < p) {
      backslash = s.indexOf('\\', p);
      if (backslash < 0) backslash = s.length;
    }
    if (backslash > quote) return quote;
    escaped = true;
    p = escapeEnd(s, backslash);
  }
}

/** Checks the escape at `at` (a backslash); returns the index after it. */
function escapeEnd(s: string, at: number): number {
  const c = s.charCodeAt(at + 1);
  if (c === 117) {
    for (let i = at + 2; i < at + 6; i++) {
      const h = s.charCodeAt(i);
      if (!((h >= 48 && h <= 57) || (h >= 65 && h <= 70) || (h >= 97 && h <= 102))) fail();
    }
    return at + 6;
  }
  // " \ / b f n r t
  if (c === 34 || c === 92 || c === 47 || c === 98 || c === 102 || c === 110 || c === 114 || c === 116) return at + 2;
  return fail();
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function numberEnd(s: string, p: number): number {
  if (s.charCodeAt(p) === 45) p++;
  const first = s.charCodeAt(p);
  if (first === 48) p++;
  else if (first >= 49 && first <= 57) while (isDigit(s.charCodeAt(++p)));
  else fail();
  if (s.charCodeAt(p) === 46) {
    if (!isDigit(s.charCodeAt(++p))) fail();
    while (isDigit(s.charCodeAt(++p)));
  }
  const e = s.charCodeAt(p);
  if (e === 101 || e === 69) {
    const sign = s.charCodeAt(++p);
    if (sign === 43 || sign === 45) p++;
    if (!isDigit(s.charCodeAt(p))) fail();
    while (isDigit(s.charCodeAt(++p)));
  }
  return p;
}

function literalEnd(s: string, p: number, word: string): number {
  if (!s.startsWith(word, p)) fail();
  return p + word.length;
}

// Character classes outside strings, for skipping containers the count does not look into; 0 is a char
// that cannot appear there.
const PLAIN = 1;
const STRING = 2;
const OPEN_OBJECT = 3;
const OPEN_ARRAY = 4;
const CLOSE_OBJECT = 5;
const CLOSE_ARRAY = 6;
const SEPARATOR = 7;
const CLASS = new Uint8Array(256);
for (const c of '0123456789+-.eEtruefalsn \t\n\r:') CLASS[c.charCodeAt(0)] = PLAIN;
CLASS[QUOTE] = STRING;
CLASS[LBRACE] = OPEN_OBJECT;
CLASS[LBRACKET] = OPEN_ARRAY;
CLASS[RBRACE] = CLOSE_OBJECT;
CLASS[RBRACKET] = CLOSE_ARRAY;
CLASS[COMMA] = SEPARATOR;
/** Deepest nesting `containerEnd` tracks (one bit a level); deeper goes to the JSON.parse fallback. */
const MAX_DEPTH = 31;

function valueEnd(s: string, p: number): number {
  switch (s.charCodeAt(p)) {
    case QUOTE:
      return stringEnd(s, p + 1) + 1;
    case LBRACE:
    case LBRACKET:
      return containerEnd(s, p);
    case 116:
      return literalEnd(s, p, 'true');
    case 102:
      return literalEnd(s, p, 'false');
    case 110:
      return literalEnd(s, p, 'null');
    default:
      return numberEnd(s, p);
  }
}

/**
 * Skips the object or array at `p`; for an array, sets `elements` to its length. Checks strings, escapes,
 * bracket pairing and the characters allowed outside strings, not the order of tokens: the lenient part
 * of the scanner, where a character loop is several times cheaper than walking tokens.
 */
function containerEnd(s: string, p: number): number {
  const empty = s.charCodeAt(p) === LBRACKET && s.charCodeAt(ws(s, p + 1)) === RBRACKET;
  let stack = 0;
  let depth = 0;
  let separators = 0;
  for (;;) {
    switch (CLASS[s.charCodeAt(p++)]) {
      case PLAIN:
        break;
      case STRING:
        p = stringEnd(s, p) + 1;
        break;
      case OPEN_OBJECT:
        if (++depth > MAX_DEPTH) fail();
        stack = (stack << 1) | 1;
        break;
      case OPEN_ARRAY:
        if (++depth > MAX_DEPTH) fail();
        stack <<= 1;
        break;
      case CLOSE_OBJECT:
        if ((stack & 1) !== 1) fail();
        stack >>>= 1;
        if (--depth === 0) return p;
        break;
      case CLOSE_ARRAY:
        if ((stack & 1) !== 0) fail();
        stack >>>= 1;
        if (--depth === 0) {
          elements = empty ? 0 : separators + 1;
          return p;
        }
        break;
      case SEPARATOR:
        if (depth === 1) separators++;
        break;
      default:
        fail();
    }
  }
}

/** After the `"` of a key: skips the key, the colon and blanks; returns the value's position. */
function afterKey(s: string, keyEnd: number): number {
  const p = ws(s, keyEnd + 1);
  if (s.charCodeAt(p) !== COLON) fail();
  return ws(s, p + 1);
}

/** Skips an array of objects; sets `elements` to the sum of the lengths of their `inner` arrays. */
function nestedEnd(s: string, p: number, inner: number): number {
  p = ws(s, p + 1);
  let n = 0;
  if (s.charCodeAt(p) !== RBRACKET) {
    for (;;) {
      if (s.charCodeAt(p) === LBRACE) {
        p = innerEnd(s, p, inner);
        n += elements;
      } else {
        p = valueEnd(s, p);
      }
      p = ws(s, p);
      const c = s.charCodeAt(p);
      if (c === COMMA) p = ws(s, p + 1);
      else if (c === RBRACKET) break;
      else fail();
    }
  }
  elements = n;
  return p + 1;
}

/** Skips an object; sets `elements` to the length of its `inner` array (0 when absent or not an array). */
function innerEnd(s: string, p: number, inner: number): number {
  p = ws(s, p + 1);
  let n = 0;
  if (s.charCodeAt(p) !== RBRACE) {
    for (;;) {
      if (s.charCodeAt(p) !== QUOTE) fail();
      const start = p + 1;
      const end = stringEnd(s, start);
      const code = escaped ? keyCodeOf(canonical(s, start, end)) : keyCode(s, start, end);
      p = afterKey(s, end);
      if (code === inner) {
        const isArray = s.charCodeAt(p) === LBRACKET;
        p = valueEnd(s, p);
        n = isArray ? elements : 0;
      } else {
        p = valueEnd(s, p);
      }
      p = ws(s, p);
      const c = s.charCodeAt(p);
      if (c === COMMA) p = ws(s, p + 1);
      else if (c === RBRACE) break;
      else fail();
    }
  }
  elements = n;
  return p + 1;
}

function keyCodeOf(text: string): number {
  return keyCode(text, 0, text.length);
}

/** A string value at `p` hashed into `out`; returns the position after it. */
function hashedStringEnd(s: string, p: number, out: Hash64): number {
  const start = p + 1;
  const end = stringEnd(s, start);
  if (escaped) {
    const text = canonical(s, start, end);
    hashRange(text, 0, text.length, out);
  } else {
    hashRange(s, start, end, out);
  }
  return end + 1;
}

const parts: MatchParts = { chunkRanges: -1, lineRanges: -1, symbols: -1, ranges: -1 };
const repo: Hash64 = { hi: 0, lo: 0 };
const path: Hash64 = { hi: 0, lo: 0 };

/** One match object at `p` into `batch`; returns the position after it. */
function matchEnd(s: string, p: number, batch: MatchBatch): number {
  parts.chunkRanges = parts.lineRanges = parts.symbols = parts.ranges = -1;
  let type = NO_TYPE;
  let typeName = '';
  let hasRepo = false;
  let hasPath = false;
  p = ws(s, p + 1);
  if (s.charCodeAt(p) !== RBRACE) {
    for (;;) {
      if (s.charCodeAt(p) !== QUOTE) fail();
      const keyStart = p + 1;
      const keyEnd = stringEnd(s, keyStart);
      const code = escaped ? keyCodeOf(canonical(s, keyStart, keyEnd)) : keyCode(s, keyStart, keyEnd);
      p = afterKey(s, keyEnd);
      const c = s.charCodeAt(p);
      // Duplicate keys: each assignment overwrites, so the last one wins, as in JSON.parse.
      switch (code) {
        case K_TYPE:
          if (c === QUOTE) {
            const start = p + 1;
            const end = stringEnd(s, start);
            const text = escaped ? canonical(s, start, end) : undefined;
            type = text === undefined ? typeCode(s, start, end) : typeCode(text, 0, text.length);
            if (type === UNKNOWN) typeName = latin1ToUtf8(text ?? s.slice(start, end));
            p = end + 1;
          } else {
            p = valueEnd(s, p);
            type = NO_TYPE;
          }
          break;
        case K_REPOSITORY:
          hasRepo = c === QUOTE;
          p = hasRepo ? hashedStringEnd(s, p, repo) : valueEnd(s, p);
          break;
        case K_PATH:
          hasPath = c === QUOTE;
          p = hasPath ? hashedStringEnd(s, p, path) : valueEnd(s, p);
          break;
        case K_CHUNK_MATCHES:
          p = c === LBRACKET ? nestedEnd(s, p, K_RANGES) : valueEnd(s, p);
          parts.chunkRanges = c === LBRACKET ? elements : -1;
          break;
        case K_LINE_MATCHES:
          p = c === LBRACKET ? nestedEnd(s, p, K_OFFSETS) : valueEnd(s, p);
          parts.lineRanges = c === LBRACKET ? elements : -1;
          break;
        case K_SYMBOLS:
          p = valueEnd(s, p);
          parts.symbols = c === LBRACKET ? elements : -1;
          break;
        case K_RANGES:
          p = valueEnd(s, p);
          parts.ranges = c === LBRACKET ? elements : -1;
          break;
        default:
          p = valueEnd(s, p);
      }
      p = ws(s, p);
      const next = s.charCodeAt(p);
      if (next === COMMA) p = ws(s, p + 1);
      else if (next === RBRACE) break;
      else fail();
    }
  }
  if (type >= 0) batch.addMatch(type, resultCount(type, parts), hasRepo ? repo : undefined, hasPath ? path : undefined);
  else if (type === UNKNOWN) batch.addUnknown(typeName);
  else batch.invalid++;
  return p + 1;
}

function arrayOfMatches(s: string, batch: MatchBatch, scanner: MatchScanner): void {
  let p = ws(s, 0);
  if (s.charCodeAt(p) !== LBRACKET) fail();
  p = ws(s, p + 1);
  if (s.charCodeAt(p) === RBRACKET) {
    p++;
  } else {
    for (;;) {
      if (s.charCodeAt(p) === LBRACE) {
        p = scanner.matchAt(s, p, batch);
      } else {
        p = valueEnd(s, p);
        batch.invalid++;
      }
      p = ws(s, p);
      const c = s.charCodeAt(p);
      if (c === COMMA) p = ws(s, p + 1);
      else if (c === RBRACKET) {
        p++;
        break;
      } else fail();
    }
  }
  if (ws(s, p) !== s.length) fail();
}

/**
 * The hot path: counts a `matches` event straight from its text (bytes as latin1), without building the
 * match objects. Exact for valid JSON (duplicate keys: the last one wins, as in JSON.parse).
 *
 * Two paths. Match objects of a shape seen before in the stream go through the learned shape (shapes.ts):
 * sticky regexes that check every token of the object, with native searches over file text. The others go
 * through the general path here, token by token for the array, each match object and its chunk/line match
 * objects; other values (e.g. `contentStart`, each range) are skipped by `containerEnd`, which checks
 * strings, escapes, bracket pairing and the characters allowed outside strings but not the order of tokens;
 * then the object's shape is learned, and kept if it counts the object exactly as the general path did.
 * Raw control characters inside strings are not checked (Go's encoder never emits them). So a cut or
 * garbled event is caught, while e.g. `[1 2]` inside a skipped value of an object of a new shape is not.
 * On anything it rejects (invalid JSON, a top level that is not an array, nesting deeper than 31) the caller
 * falls back to JSON.parse + `countObjects`, which applies the same rule and the same hashes and reports
 * invalid JSON as a malformed event.
 */
export class MatchScanner {
  /** Match objects counted by a learned shape, and by the general path (for tests and benchmarks). */
  shaped = 0;
  general = 0;
  /** Learned shapes, most recently matched first. */
  private readonly shapes: Shape[] = [];
  private learnings = 0;
  private readonly check = [new MatchBatch(), new MatchBatch()] as const;

  /** `learn: false` keeps every object on the general path. */
  constructor(private readonly options: { learn: boolean } = { learn: true }) {}

  /** Learned shapes kept. */
  get shapeCount(): number {
    return this.shapes.length;
  }

  /** Adds the event's matches to `batch`; false when the text was not understood (then `batch` is partial). */
  scan(text: string, batch: MatchBatch): boolean {
    backslash = -1;
    resetShapes();
    try {
      arrayOfMatches(text, batch, this);
      return true;
    } catch {
      return false;
    }
  }

  /** The match object at `p` (a `{`) into `batch`; returns the position after it. */
  matchAt(s: string, p: number, batch: MatchBatch): number {
    const shapes = this.shapes;
    for (let i = 0; i < shapes.length; i++) {
      const shape = shapes[i]!;
      const end = shape.match(s, p, batch);
      if (end >= 0) {
        for (let j = i; j > 0; j--) shapes[j] = shapes[j - 1]!;
        shapes[0] = shape;
        this.shaped++;
        return end;
      }
    }
    const end = matchEnd(s, p, batch);
    this.general++;
    if (this.learnings < MAX_LEARNINGS && this.options.learn) {
      this.learnings++;
      this.learn(s.slice(p, end));
    }
    return end;
  }

  /** Learns the shape of `text`, a match object the general path accepted, if the shape counts it identically. */
  private learn(text: string): void {
    const shape = learnShape(text);
    if (shape === undefined) return;
    const [fast, general] = this.check;
    fast.reset();
    general.reset();
    // The check scans another string: the outer scan's cached backslash positions must survive it.
    const saved = backslash;
    const savedShapes = shapeState();
    backslash = -1;
    resetShapes();
    try {
      if (shape.match(text, 0, fast) !== text.length || matchEnd(text, 0, general) !== text.length || !sameBatch(fast, general)) return;
    } catch {
      return;
    } finally {
      backslash = saved;
      restoreShapeState(savedShapes);
    }
    this.shapes.unshift(shape);
    if (this.shapes.length > MAX_SHAPES) this.shapes.pop();
  }
}

/** Shapes kept per scanner (per stream), and shapes learned at most: bounds what an irregular stream costs. */
const MAX_SHAPES = 8;
const MAX_LEARNINGS = 64;

function sameBatch(a: MatchBatch, b: MatchBatch): boolean {
  const same = (x: ArrayLike<number>, y: ArrayLike<number>, n: number): boolean => {
    for (let i = 0; i < n; i++) if (x[i] !== y[i]) return false;
    return true;
  };
  return (
    a.objects === b.objects &&
    a.invalid === b.invalid &&
    a.unknown === undefined &&
    b.unknown === undefined &&
    same(a.counted, b.counted, a.counted.length) &&
    a.repoLength === b.repoLength &&
    a.fileLength === b.fileLength &&
    same(a.repoKeys, b.repoKeys, a.repoLength) &&
    same(a.fileKeys, b.fileKeys, a.fileLength)
  );
}
