/*
 * The emulator's subset of the platform's query language (V3).
 *
 * Patterns
 * - Whitespace-separated terms are ANDed per FILE (every term must occur somewhere in the file, not
 *   on one line); every occurrence of every matching term is reported. This holds for all pattern
 *   types; `keyword` and `standard` behave the same.
 * - `AND`, `OR`, `NOT` (any case) and parentheses combine terms; AND binds tighter than OR; `NOT t`
 *   means the file must not contain t. A `(` that starts a token opens a group; inside a word balanced
 *   parentheses are literal (`foo()`); quote a phrase to search for a lone parenthesis.
 * - `"a quoted phrase"` is always a literal (escapes `\"` and `\\`).
 * - standard / keyword (default, or `t=`): bare words are literals and `/.../` is a JavaScript regexp.
 *   regexp (`patternType:regexp` or `t=regexp`): bare words are regexps. literal: everything literal.
 *   lucky is searched like standard; structural approximately: `:[hole]` matches anything (lazily,
 *   across lines), the rest literally (the emulator has no comby).
 * - Matching is case-insensitive unless `case:yes`; `^` and `$` match at line boundaries and `.` does
 *   not cross lines; a regexp may still span lines (e.g. with `\s`). Empty matches are ignored.
 *
 * Filters (they apply to the whole query, must appear outside parentheses and cannot be operands of
 * OR / NOT)
 * - `repo:RE` / `-repo:RE` (alias `r:`): JavaScript regexp on the repository name; several are ANDed.
 * - `file:RE` / `-file:RE` (aliases `f:`, `path:`): regexp on the file path inside the repository.
 * - `lang:NAME` / `-lang:NAME` (aliases `l:`, `language:`): language from the file extension.
 *   Filters follow `case:` like patterns do.
 * - `case:yes|no`, `count:N|all` (default limit set by the server), `type:file|path|repo|symbol`,
 *   `archived:yes|no|only` and `fork:yes|no|only` (default no), `timeout:` as a Go duration (`5s`,
 *   `1m30s`, `500ms`), `patternType:standard|keyword|regexp|literal|structural|lucky`, `context:global` (ignored).
 * - Without a pattern: `file:` / `lang:` filters give path results, otherwise repository results.
 *   `type:repo` matches the pattern against repository names and ignores `file:` and `lang:`.
 *   `type:symbol` matches the pattern against the names of the definitions in each file (symbols.ts),
 *   every definition without a pattern; a file's result counts its matching symbols.
 * Anything else of the form `word:value` is a literal term.
 */
import { QuerySyntaxError } from './errors.js';
import { resolveLanguage } from './languages.js';
import { tokenize, type Token } from './tokens.js';

export const PATTERN_TYPES = ['standard', 'keyword', 'regexp', 'literal', 'structural', 'lucky'] as const;
export type PatternType = (typeof PATTERN_TYPES)[number];
const TRISTATE = ['yes', 'no', 'only'] as const;
export type Tristate = (typeof TRISTATE)[number];
const RESULT_TYPES = ['file', 'path', 'repo', 'symbol'] as const;
export type ResultType = (typeof RESULT_TYPES)[number];

export type Pattern =
  | { kind: 'term'; regexp: RegExp }
  | { kind: 'and' | 'or'; children: Pattern[] }
  | { kind: 'not'; child: Pattern };

export interface Query {
  patternType: PatternType;
  /** null when the query has no pattern. */
  pattern: Pattern | null;
  repo: RegExp[];
  notRepo: RegExp[];
  file: RegExp[];
  notFile: RegExp[];
  /** Canonical language names. */
  lang: string[];
  notLang: string[];
  caseSensitive: boolean;
  /** undefined: the server's default limit. */
  count: number | 'all' | undefined;
  type: ResultType | undefined;
  archived: Tristate;
  fork: Tristate;
  timeoutMs: number | undefined;
}

type FieldToken = Extract<Token, { kind: 'field' }>;

const SINGLE = new Set(['case', 'count', 'type', 'archived', 'fork', 'timeout', 'patterntype', 'context']);
const NEGATABLE = new Set(['repo', 'file', 'lang']);

/** Parses a query; throws QuerySyntaxError with a message fit for an alert. */
export function parseQuery(input: string, defaultPatternType: PatternType = 'standard'): Query {
  const tokens = tokenize(input);
  const fields: FieldToken[] = [];
  const patternTokens: Token[] = [];
  let depth = 0;
  for (const token of tokens) {
    if (token.kind === 'lparen') depth++;
    if (token.kind === 'rparen') depth--;
    if (token.kind !== 'field') patternTokens.push(token);
    else if (depth > 0) throw new QuerySyntaxError(`filter ${token.field}: is not supported inside parentheses`);
    else fields.push(token);
  }
  checkFields(fields);
  const single = (name: string) => fields.find((f) => f.field === name)?.value;
  const caseSensitive = choice('case', single('case'), ['yes', 'no'] as const) === 'yes';
  const patternType = choice('patternType', single('patterntype'), PATTERN_TYPES) ?? defaultPatternType;
  const context = single('context');
  if (context !== undefined && context !== 'global') throw new QuerySyntaxError(`search context "${context}" not found`);
  const filterRegExps = (name: string, negated: boolean) =>
    fields.filter((f) => f.field === name && f.negated === negated).map((f) => regExp(f.value, caseSensitive ? '' : 'i'));
  const languages = (negated: boolean) =>
    fields.filter((f) => f.field === 'lang' && f.negated === negated).map((f) => language(f.value));
  return {
    patternType,
    pattern: new PatternParser(patternTokens, (t) => compileTerm(t, patternType, caseSensitive)).parse(),
    repo: filterRegExps('repo', false),
    notRepo: filterRegExps('repo', true),
    file: filterRegExps('file', false),
    notFile: filterRegExps('file', true),
    lang: languages(false),
    notLang: languages(true),
    caseSensitive,
    count: count(single('count')),
    type: resultType(single('type')),
    archived: choice('archived', single('archived'), TRISTATE) ?? 'no',
    fork: choice('fork', single('fork'), TRISTATE) ?? 'no',
    timeoutMs: duration(single('timeout')),
  };
}

function checkFields(fields: FieldToken[]): void {
  const seen = new Set<string>();
  for (const { field, negated, value } of fields) {
    if (negated && !NEGATABLE.has(field)) throw new QuerySyntaxError(`filter ${field}: cannot be negated`);
    if (SINGLE.has(field) && seen.has(field)) throw new QuerySyntaxError(`filter ${field}: may appear only once`);
    if (value === '') throw new QuerySyntaxError(`filter ${field}: needs a value`);
    seen.add(field);
  }
}

function choice<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  const found = allowed.find((a) => a.toLowerCase() === value.toLowerCase());
  if (!found) throw new QuerySyntaxError(`invalid value "${value}" for ${name}: (expected one of ${allowed.join(', ')})`);
  return found;
}

function resultType(value: string | undefined): ResultType | undefined {
  if (value !== undefined && ['commit', 'diff'].includes(value.toLowerCase())) {
    throw new QuerySyntaxError(`type:${value} is not supported by this instance (supported: ${RESULT_TYPES.join(', ')})`);
  }
  return choice('type', value, RESULT_TYPES);
}

function count(value: string | undefined): number | 'all' | undefined {
  if (value === undefined) return undefined;
  if (value.toLowerCase() === 'all') return 'all';
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1)) throw new QuerySyntaxError(`invalid count "${value}": expected a positive integer or all`);
  return Math.min(n, Number.MAX_SAFE_INTEGER);
}

const DURATION_UNITS_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go duration such as `5s`, `1m30s` or `250ms`, in milliseconds. */
function duration(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const part = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;
  let ms = 0;
  let end = 0;
  for (let m = part.exec(value); m; m = part.exec(value)) {
    ms += Number(m[1]) * DURATION_UNITS_MS[m[2]!]!;
    end = part.lastIndex;
  }
  if (end === 0 || end !== value.length) {
    throw new QuerySyntaxError(`invalid timeout "${value}": expected a duration such as 5s, 1m30s or 500ms`);
  }
  return ms;
}

function language(value: string): string {
  const name = resolveLanguage(value);
  if (!name) throw new QuerySyntaxError(`unknown language: "${value}"`);
  return name;
}

function regExp(source: string, flags: string): RegExp {
  try {
    return new RegExp(source, flags);
  } catch (err) {
    throw new QuerySyntaxError(`invalid regular expression ${JSON.stringify(source)}: ${(err as Error).message}`);
  }
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function compileTerm(token: Extract<Token, { text: string }>, patternType: PatternType, caseSensitive: boolean): RegExp {
  const flags = caseSensitive ? 'gm' : 'gim';
  if (token.kind === 'quoted') {
    if (token.text === '') throw new QuerySyntaxError('empty quoted pattern ""');
    return regExp(escapeRegExp(token.text), flags);
  }
  const raw = token.kind === 'slash' ? `/${token.text}/` : token.text;
  switch (patternType) {
    case 'regexp':
      return regExp(raw, flags);
    case 'literal':
      return regExp(escapeRegExp(raw), flags);
    case 'structural':
      return regExp(raw.split(/:\[[^\]]*\]/).map(escapeRegExp).join('[\\s\\S]*?'), flags);
    default:
      return regExp(token.kind === 'slash' ? token.text : escapeRegExp(raw), flags);
  }
}

/** Recursive descent over pattern tokens: or := and (OR and)*; and := unary (AND? unary)*; unary := NOT unary | (or) | term. */
class PatternParser {
  private pos = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly compile: (token: Extract<Token, { text: string }>) => RegExp,
  ) {}

  parse(): Pattern | null {
    if (this.tokens.length === 0) return null;
    return this.or();
  }

  private or(): Pattern {
    const children = [this.and('OR')];
    while (this.peekOp('OR')) {
      this.pos++;
      children.push(this.and('OR'));
    }
    return children.length === 1 ? children[0]! : { kind: 'or', children };
  }

  private and(context: string): Pattern {
    const children: Pattern[] = [];
    for (let token = this.tokens[this.pos]; token && token.kind !== 'rparen' && !this.peekOp('OR'); token = this.tokens[this.pos]) {
      if (this.peekOp('AND')) {
        if (children.length === 0) throw new QuerySyntaxError('AND needs a pattern on its left');
        this.pos++;
        if (!this.startsOperand()) throw new QuerySyntaxError('AND needs a pattern on its right');
        continue;
      }
      children.push(this.unary());
    }
    if (children.length === 0) throw new QuerySyntaxError(`${context} needs a pattern on both sides`);
    return children.length === 1 ? children[0]! : { kind: 'and', children };
  }

  private unary(): Pattern {
    const token = this.tokens[this.pos++]!;
    switch (token.kind) {
      case 'op':
        if (!this.startsOperand()) throw new QuerySyntaxError('NOT needs a pattern after it');
        return { kind: 'not', child: this.unary() };
      case 'lparen': {
        if (this.tokens[this.pos]?.kind === 'rparen') throw new QuerySyntaxError('empty parentheses "()"');
        const inner = this.or();
        this.pos++;
        return inner;
      }
      case 'word':
      case 'quoted':
      case 'slash':
        return { kind: 'term', regexp: this.compile(token) };
      default:
        throw new QuerySyntaxError('unbalanced parentheses');
    }
  }

  private startsOperand(): boolean {
    const token = this.tokens[this.pos];
    return token !== undefined && token.kind !== 'rparen' && !(token.kind === 'op' && token.op !== 'NOT');
  }

  private peekOp(op: 'AND' | 'OR'): boolean {
    const token = this.tokens[this.pos];
    return token?.kind === 'op' && token.op === op;
  }
}
