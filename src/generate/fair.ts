import type { IndexedSymbol } from './index-search.js';

/*
 * Which symbols make fair questions (docs/generate.md#what-is-asked):
 * - functions, classes and methods (kinds FUNCTION, CLASS, METHOD), named with at least 4 characters;
 * - defined in source: not in tests, examples, fixtures or benchmarks, not vendored, not generated or
 *   compiled (minified files, source maps, type declarations, `build/` output, bundles named by hash);
 * - defined exactly once in the repository's source (as above: a type declaration or a test helper of the
 *   same name does not count), so a question has one right answer;
 * - not a name that many codebases share (`constructor`, `toString`, `render`, `handler`, ...), nor a
 *   single lower-case word (`help`, `string`), which names too many other things to be looked for.
 */

const KINDS = new Set(['FUNCTION', 'CLASS', 'METHOD']);
const MIN_NAME_CHARS = 4;

const NOT_SOURCE = [
  /(?:^|\/)(?:tests?|__tests__|__mocks__|specs?|fixtures?|benchmarks?|benches|examples?|e2e|testdata)\//i,
  /[._-](?:test|spec|bench)\.[^/]+$/i,
  /(?:^|\/)(?:vendor|vendored|third[_-]party|node_modules)\//i,
  /(?:^|\/)(?:build|\.deps)\//i,
  /\.min\.[^/]+$/i,
  /\.map$/i,
  /\.d\.[cm]?ts$/i,
  /(?:^|[./_-])(?:generated|gen|bundle)[./_-]/i,
  // Bundler output named by content hash (`chunks/cli-api.B0Pz1_R7.js`).
  /(?:^|\/)chunks\//i,
  /\.[A-Za-z0-9_-]{8}\.[cm]?js$/,
  /_pb2?\.[^/]+$/i,
];

const COMMON_NAMES = new Set(
  (
    'constructor toString toJSON valueOf inspect init initialize main render handler handle callback callbacks ' +
    'create update destroy delete remove insert start stop close open read write flush reset clear clone copy ' +
    'parse format stringify serialize deserialize encode decode validate check test run exec execute apply call ' +
    'bind then catch finally next done error warn info debug log emit on off once listen listener dispatch ' +
    'get set has add push pop shift unshift find filter map reduce forEach keys values entries size length ' +
    'name type value data options config default index noop identity wrap unwrap from isArray isObject isString ' +
    'isFunction isNumber isBoolean isUndefined isNull isPlainObject merge extend assign equals compare hash ' +
    'toArray toObject toNumber toBoolean load save send fetch request response resolve reject process setup'
  ).split(' '),
);

/** Whether a file holds source a question may fairly be about. */
export function isSourcePath(path: string): boolean {
  return !NOT_SOURCE.some((re) => re.test(path));
}

/** Symbols of one repository a definition, usage or count question may ask about, each once, in index order. */
export function fairSymbols(symbols: readonly IndexedSymbol[]): IndexedSymbol[] {
  const definedIn = new Map<string, number>();
  for (const s of symbols) if (isSourcePath(s.path)) definedIn.set(s.name, (definedIn.get(s.name) ?? 0) + 1);
  return symbols.filter(
    (s) =>
      KINDS.has(s.kind.toUpperCase()) &&
      s.name.length >= MIN_NAME_CHARS &&
      /^[A-Za-z_$][\w$]*$/.test(s.name) &&
      !/^[a-z]+$/.test(s.name) &&
      !COMMON_NAMES.has(s.name) &&
      isSourcePath(s.path) &&
      definedIn.get(s.name) === 1,
  );
}
