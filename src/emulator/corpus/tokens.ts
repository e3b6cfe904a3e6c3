import { QuerySyntaxError } from './errors.js';

/** Field names (lower case) and their aliases, mapped to the canonical name. */
const FIELDS: Record<string, string> = {
  repo: 'repo', r: 'repo',
  file: 'file', f: 'file', path: 'file',
  lang: 'lang', l: 'lang', language: 'lang',
  case: 'case', count: 'count', type: 'type', archived: 'archived', fork: 'fork',
  timeout: 'timeout', patterntype: 'patterntype', context: 'context',
};

export type Token =
  | { kind: 'lparen' | 'rparen' }
  | { kind: 'op'; op: 'AND' | 'OR' | 'NOT' }
  | { kind: 'field'; field: string; negated: boolean; value: string }
  /** A bare word, a "quoted phrase" (unescaped), or a /slash-delimited/ pattern (inner text). */
  | { kind: 'word' | 'quoted' | 'slash'; text: string };

const FIELD_PREFIX = /(-?)([A-Za-z]+):/y;
const OPERATORS = new Set(['AND', 'OR', 'NOT']);

/**
 * Splits a query into tokens. `(` at the start of a token opens a group and `)` closes one; parentheses
 * inside a word stay part of it while balanced (so `foo()` is a word). Double quotes delimit a phrase
 * with `\"` and `\\` escapes. `/.../` is a slash token when the closing slash ends the token.
 */
export function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let depth = 0;
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(') {
      tokens.push({ kind: 'lparen' });
      depth++;
      i++;
    } else if (c === ')') {
      if (depth === 0) throw new QuerySyntaxError('unbalanced parentheses: unexpected ")"');
      tokens.push({ kind: 'rparen' });
      depth--;
      i++;
    } else if (c === '"') {
      const [text, end] = readQuoted(input, i);
      tokens.push({ kind: 'quoted', text });
      i = end;
    } else if (c === '/' && slashEnd(input, i) > i + 1) {
      const end = slashEnd(input, i);
      tokens.push({ kind: 'slash', text: input.slice(i + 1, end) });
      i = end + 1;
    } else {
      FIELD_PREFIX.lastIndex = i;
      const prefix = FIELD_PREFIX.exec(input);
      const field = prefix ? FIELDS[prefix[2]!.toLowerCase()] : undefined;
      if (prefix && field) {
        i += prefix[0].length;
        const [value, end] = input[i] === '"' ? readQuoted(input, i) : readWord(input, i, depth);
        tokens.push({ kind: 'field', field, negated: prefix[1] === '-', value });
        i = end;
      } else {
        const [text, end] = readWord(input, i, depth);
        const upper = text.toUpperCase();
        tokens.push(OPERATORS.has(upper) ? { kind: 'op', op: upper as 'AND' | 'OR' | 'NOT' } : { kind: 'word', text });
        i = end;
      }
    }
  }
  if (depth > 0) throw new QuerySyntaxError('unbalanced parentheses: missing ")"');
  return tokens;
}

function readQuoted(input: string, start: number): [string, number] {
  let text = '';
  for (let i = start + 1; i < input.length; i++) {
    const c = input[i]!;
    if (c === '"') return [text, i + 1];
    if (c === '\\' && (input[i + 1] === '"' || input[i + 1] === '\\')) {
      text += input[++i];
    } else {
      text += c;
    }
  }
  throw new QuerySyntaxError(`unterminated quoted string starting at column ${start + 1}`);
}

/** Index of the slash closing a `/.../` pattern (followed by whitespace, `)` or the end), or -1. */
function slashEnd(input: string, start: number): number {
  for (let i = start + 1; i < input.length; i++) {
    const c = input[i]!;
    if (c === '\\') i++;
    else if (c === '/' && (i + 1 === input.length || /[\s)]/.test(input[i + 1]!))) return i;
  }
  return -1;
}

function readWord(input: string, start: number, depth: number): [string, number] {
  let inner = 0;
  let i = start;
  for (; i < input.length; i++) {
    const c = input[i]!;
    if (/\s/.test(c)) break;
    if (c === '(') inner++;
    else if (c === ')') {
      if (inner > 0) inner--;
      else if (depth > 0) break;
    }
  }
  return [input.slice(start, i), i];
}
