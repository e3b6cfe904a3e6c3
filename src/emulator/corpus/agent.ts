import type { Corpus } from './corpus.js';
import { escapeRegExp, parseQuery, type Query } from './query.js';
import { lineEnd, lineOf, type Range } from './ranges.js';
import { SearchRun, type ContentHit } from './search.js';
import { tokenize } from './tokens.js';

export interface AgentCitation {
  repository: string;
  path: string;
  /** 1-based, as in a `?L<n>` link. */
  lineNumber: number;
  /** The cited line, trimmed and cut to 200 characters; "" for a path result. */
  preview: string;
  /** The repository's commit, which answers pin their links to. */
  revision?: string;
  /** Last line of the cited span (a few lines from `lineNumber`, within the file); absent for a path result. */
  endLine?: number;
  /** The cited span's text, for the answer's evidence block; absent for a path result. */
  snippet?: string;
}

/** The fake agent's search over a corpus, with the repository names a question may mention. */
export interface CorpusAgentSearch {
  (query: string, limit: number): Promise<AgentCitation[]>;
  /** Full names of every repository of the corpus, archived ones and forks included, sorted. */
  repositories(): Promise<string[]>;
  /** Where the symbol index says `name` is defined in these repositories (the stream's `type:symbol`). */
  definitions(name: string, repositories: readonly string[]): Promise<AgentCitation[]>;
  /**
   * Every file of these repositories where `name` appears as a whole word (case-sensitive), at its first
   * occurrence, from an exhaustive search; `complete` is false when the work budget ran out first.
   */
  filesWith(name: string, repositories: readonly string[]): Promise<{ files: AgentCitation[]; complete: boolean }>;
}

const PREVIEW_CHARS = 200;
/** Compiled output is not what an agent cites. */
const NOT_SOURCE = '-file:(^|/)(build|\\.deps)/';
/** Matching files ranked per search; enough for a repository, a cap for a common word in a whole corpus. */
const MAX_CANDIDATES = 100;
/** Occurrences weighed per file when choosing the line to cite. */
const MAX_RANGES_PER_FILE = 200;
/** A matched line this long is minified code. */
const MINIFIED_LINE_CHARS = 1_000;
/** Repositories of a scoped search whose files are listed before its budget starts. */
const MAX_LISTED_REPOSITORIES = 8;
/** Lines after the cited one that a link's range takes in, as real answers cite a few lines (`?L107-L110`). */
const SPAN_LINES = 3;
const SNIPPET_CHARS = 800;
/** Searches whose citations are remembered. */
const REMEMBERED_SEARCHES = 256;

export interface AgentSearchOptions {
  /**
   * Files one search may examine: a budget in work, never in time, so results do not depend on the
   * machine's speed or load (a file takes ~0.3 ms on a typical machine). `scoped` applies to searches with
   * a `repo:` filter, `global` to the others, which scan the whole corpus.
   */
  maxFiles?: { scoped?: number; global?: number };
}

/**
 * Search for the fake agent: at most `limit` citations, one per file, ranked like a code search engine
 * would. Source files (`lib/`, `src/`, code) outrank tests, docs, config, `.d.ts`, maps and minified
 * bundles; within a file the cited line is the one that best defines what was searched for
 * (`class X`, `function X`, `const X =`, `X:`, `export … X`), else the first occurrence. Ties keep corpus
 * order. Build output is left out, and so are repository results. Scoping is the caller's, with
 * `repo:` filters (plus `archived:yes fork:yes` to reach archived repositories and forks).
 *
 * Each search examines at most `maxFiles` files (default 500 when scoped to repositories: all of most
 * packages; 200 otherwise: the first few packages of dsbench's node_modules), files of at most 1 MB, so
 * its work is bounded; it is never cut short by real time, so a busy machine gets the same citations
 * (later), and the emulator's clock waits for them (see ConversationService). The files of the
 * repositories a scoped search names are listed before its budget starts, as an index would have them.
 * The citations of the last 256 searches are remembered, so a repeated question, or a follow-up that
 * looks again, gets the same ones at no cost. Throws QuerySyntaxError for a query that does not parse.
 */
export function createAgentSearch(corpus: Corpus, options: AgentSearchOptions = {}): CorpusAgentSearch {
  const maxScoped = options.maxFiles?.scoped ?? 500;
  const maxGlobal = options.maxFiles?.global ?? 200;
  const remembered = new Map<string, Promise<AgentCitation[]>>();
  const search = async (query: string, limit: number): Promise<AgentCitation[]> => {
    const key = `${limit}\u0000${query}`;
    let citations = remembered.get(key);
    remembered.delete(key);
    if (!citations) {
      citations = find(query, limit);
      citations.catch(() => remembered.delete(key));
    }
    remembered.set(key, citations);
    for (const oldest of remembered.keys()) {
      if (remembered.size <= REMEMBERED_SEARCHES) break;
      remembered.delete(oldest);
    }
    return (await citations).slice();
  };
  const find = async (query: string, limit: number): Promise<AgentCitation[]> => {
    if (limit <= 0) return [];
    const parsed = parseQuery(`${NOT_SOURCE} ${query}`);
    const terms = literalTerms(query);
    const scoped = parsed.repo.length > 0;
    const maxFiles = scoped ? maxScoped : maxGlobal;
    if (scoped) await listFiles(corpus, parsed, maxFiles);
    const run = budgeted(corpus, parsed, maxFiles);
    const ranked: Array<{ citation: AgentCitation; score: number; order: number }> = [];
    for await (const hit of run.hits()) {
      if (hit.type === 'path') {
        const citation = { repository: hit.repo.name, revision: hit.repo.commit, path: hit.path, lineNumber: 1, preview: '' };
        ranked.push({ citation, score: pathScore(hit.path, false), order: ranked.length });
      } else if (hit.type === 'content') {
        const best = bestLine(hit, terms);
        const endLine = Math.max(best.line + 1, Math.min(best.line + 1 + SPAN_LINES, hit.lineStarts.length));
        const snippet = hit.text.slice(hit.lineStarts[best.line], hit.lineStarts[endLine] ?? hit.text.length).replace(/\n$/, '').slice(0, SNIPPET_CHARS);
        const citation = { repository: hit.repo.name, revision: hit.repo.commit, path: hit.path, lineNumber: best.line + 1, endLine, snippet, preview: best.text.trim().slice(0, PREVIEW_CHARS) };
        ranked.push({ citation, score: pathScore(hit.path, best.text.length > MINIFIED_LINE_CHARS) + best.score, order: ranked.length });
      }
      if (ranked.length >= MAX_CANDIDATES) break;
    }
    ranked.sort((a, b) => b.score - a.score || a.order - b.order);
    return ranked.slice(0, limit).map((r) => r.citation);
  };
  let names: Promise<string[]> | undefined;
  const repositories = () => (names ??= corpus.repositories().then((repos) => repos.map((r) => r.name)));
  const scope = (repos: readonly string[]) => `repo:^(?:${repos.map(escapeRegExp).join('|')})$ archived:yes fork:yes count:all`;
  const definitions = async (name: string, repos: readonly string[]): Promise<AgentCitation[]> => {
    if (repos.length === 0) return [];
    const run = budgeted(corpus, parseQuery(`${scope(repos)} type:symbol case:yes /^${escapeRegExp(name)}$/`), maxIndexed);
    const found: AgentCitation[] = [];
    for await (const hit of run.hits()) {
      if (hit.type !== 'symbol') continue;
      for (const s of hit.symbols) found.push({ repository: hit.repo.name, revision: hit.repo.commit, path: hit.path, lineNumber: s.line + 1, preview: '' });
    }
    return withPreviews(corpus, found);
  };
  const filesWith = async (name: string, repos: readonly string[]) => {
    if (repos.length === 0) return { files: [], complete: true };
    const run = budgeted(corpus, parseQuery(`${scope(repos)} type:file case:yes /\\b${escapeRegExp(name)}\\b/`), maxIndexed);
    const files: AgentCitation[] = [];
    for await (const hit of run.hits()) {
      if (hit.type !== 'content') continue;
      const line = lineOf(hit.lineStarts, hit.ranges[0]![0]);
      files.push({ repository: hit.repo.name, revision: hit.repo.commit, path: hit.path, lineNumber: line + 1, preview: hit.text.slice(hit.lineStarts[line], lineEnd(hit.text, hit.lineStarts, line)).trim().slice(0, PREVIEW_CHARS) });
    }
    return { files, complete: !run.timedOut && !run.limitHit };
  };
  return Object.assign(search, { repositories, definitions, filesWith });
}

/** Files an index lookup (definitions, every file with a name) may examine: a whole large package. */
const maxIndexed = 5_000;

/** A run whose timeout is a budget of files: a step (1 ms) per repository or file examined. */
function budgeted(corpus: Corpus, query: Query, maxFiles: number): SearchRun {
  return new SearchRun(corpus, query, { chunkMatches: false, defaultLimit: 100_000, defaultTimeoutMs: maxFiles, stepMs: 1 });
}

/** The cited lines' text, read from the corpus. */
async function withPreviews(corpus: Corpus, citations: AgentCitation[]): Promise<AgentCitation[]> {
  const repos = new Map((await corpus.repositories()).map((r) => [r.name, r]));
  return Promise.all(
    citations.map(async (c) => {
      const repo = repos.get(c.repository);
      const text = repo ? await corpus.readText(repo, { path: c.path, size: 0 }) : undefined;
      return { ...c, preview: (text?.split('\n')[c.lineNumber - 1] ?? '').trim().slice(0, PREVIEW_CHARS) };
    }),
  );
}

/**
 * Lists the files of the repositories a scoped search selects (up to `maxFiles` each), outside its
 * budget: the corpus keeps complete lists, as an index would, so the budget is spent on reading and
 * matching rather than on walking folders.
 */
async function listFiles(corpus: Corpus, query: Query, maxFiles: number): Promise<void> {
  const selected = (await corpus.repositories()).filter(
    (r) => query.repo.every((re) => re.test(r.name)) && !query.notRepo.some((re) => re.test(r.name)),
  );
  // A filter as wide as the corpus is a whole-corpus search in disguise: no listing ahead for it.
  if (selected.length > MAX_LISTED_REPOSITORIES) return;
  for (const repo of selected) {
    let n = 0;
    for await (const _ of corpus.files(repo)) if (++n > maxFiles) break;
  }
}

/** Bare words and quoted phrases of a query, as typed: an occurrence in the same case scores higher. */
function literalTerms(query: string): Set<string> {
  try {
    const terms = new Set<string>();
    for (const token of tokenize(query)) if (token.kind === 'word' || token.kind === 'quoted') terms.add(token.text);
    return terms;
  } catch {
    return new Set();
  }
}

/** The line of a content hit that best shows what was searched for. */
function bestLine(hit: ContentHit, terms: Set<string>): { line: number; text: string; score: number } {
  let best: { line: number; text: string; score: number } | undefined;
  // Ranges come in order, many on one line of minified code: each line is cut out and checked for imports once.
  let current = { line: -1, text: '', imports: false };
  for (const [start, end] of hit.ranges.slice(0, MAX_RANGES_PER_FILE) as Range[]) {
    const line = lineOf(hit.lineStarts, start);
    if (line !== current.line) {
      const text = hit.text.slice(hit.lineStarts[line], lineEnd(hit.text, hit.lineStarts, line));
      current = { line, text, imports: importsOrRequires(text) };
    }
    const lineStart = hit.lineStarts[line]!;
    const score = occurrenceScore(current.text, start - lineStart, end - lineStart, terms, current.imports);
    if (!best || score > best.score) best = { line, text: current.text, score };
  }
  return best ?? { line: 0, text: '', score: 0 };
}

const WORD_CHAR = /[\w$]/;

/** 0–5: how well an occurrence at [start, end) of a line answers a search for it. */
function occurrenceScore(line: string, start: number, end: number, terms: Set<string>, imports: boolean): number {
  let from = start;
  let to = end;
  while (from > 0 && WORD_CHAR.test(line[from - 1]!)) from--;
  while (to < line.length && WORD_CHAR.test(line[to]!)) to++;
  const definition = definitionScore(line, from, to, imports);
  // Part of a longer name (`kRetryHandlerDefaultRetry` for `RetryHandler`) counts less than the name itself.
  if (from !== start || to !== end) return Math.max(0, definition - 1);
  return definition + 1 + (terms.has(line.slice(start, end)) ? 1 : 0);
}

/** A declaring keyword that ends where the text does; 10 characters hold the longest keyword and the one before it. */
const DECLARATION = /(?:^|[^\w$.])(?:class|interface|type|enum|struct|trait|function\*?|def|func|fn|namespace|const|let|var|val)$/;
const DECLARATION_WINDOW = 10;
const SPACE = /\s/;
const MODIFIERS = /^\s*(?:(?:export|default|declare|public|private|protected|static|readonly|async|get|set|override|abstract)\s+)*/;
const ASSIGNED = /^\s*(?:=(?![=>])|\??:(?!:)|\([^)]*\)\s*(?::[^{]*)?\{)/;

/** Whether a line is an import or a `require(` call, whose names are never definitions. */
function importsOrRequires(line: string): boolean {
  return /^\s*import\b/.test(line) || /\brequire\s*\(/.test(line);
}

/**
 * Whether `line` before `start` ends in a declaring keyword and white space (`const `, `function* `). Only the
 * end of it is matched: a minified line is up to a megabyte long, with up to 200 occurrences weighed on it.
 */
function declares(line: string, start: number): boolean {
  let end = start;
  while (end > 0 && SPACE.test(line[end - 1]!)) end--;
  // A window that does not reach the line's start holds more than any keyword, so its `^` never matches alone.
  return end < start && DECLARATION.test(line.slice(Math.max(0, end - DECLARATION_WINDOW), end));
}

/**
 * How strongly a line defines the identifier at [start, end): 3 for a declaration (`class X`,
 * `function X`, `const X =`, `type X`), 2 for an assignment, property or method (`X = …`, `X: …`,
 * `X (a) {`), 1 for an export (`export { X }`, `module.exports = X`), 0 for a mere mention or an import.
 * `imports` is `importsOrRequires(line)`, for a caller that weighs many occurrences on one line.
 */
export function definitionScore(line: string, start: number, end: number, imports = importsOrRequires(line)): number {
  if (imports) return 0;
  if (declares(line, start)) return 3;
  const before = line.slice(0, start);
  const head = before.replace(MODIFIERS, '');
  if (/^(?:(?:module\.)?exports\.|this\.|self\.|[\w$]+\.prototype\.)?$/.test(head) && ASSIGNED.test(line.slice(end))) return 2;
  if (/\bexport\b/.test(before) || /\bmodule\.exports\b/.test(before)) return 1;
  return 0;
}

const CODE_FILE = /\.(?:[cm]?[jt]sx?|py|go|rs|c|cc|cpp|cxx|h|hh|hpp|java|kt|scala|rb|php|cs|swift|m|mm|sh|lua|zig)$/;

/**
 * 0–6: how much a file is worth citing by its path: source code in `lib/` or `src/` 6, other code 5,
 * bundled output (`dist/`, `cjs/`, `esm/`) 4, tests 3, docs and config 2, type declarations 1, source
 * maps and minified files 0.
 */
export function pathScore(path: string, minified: boolean): number {
  const lower = path.toLowerCase();
  const base = lower.slice(lower.lastIndexOf('/') + 1);
  if (minified || base.endsWith('.map') || /\.min\.[cm]?[jt]s$/.test(base)) return 0;
  if (/\.d\.[cm]?ts$/.test(base)) return 1;
  if (
    /(?:^|\/)(?:docs?|examples?|man)\//.test(lower) ||
    /\.(?:md|mdx|markdown|txt|rst|adoc)$/.test(base) ||
    /^(?:readme|licen[cs]e|changelog|history|contributing|notice)(?:\.|$)/.test(base) ||
    !CODE_FILE.test(base)
  ) {
    return 2;
  }
  if (/(?:^|\/)(?:tests?|__tests__|specs?|benchmarks?|fixtures?)\//.test(lower) || /\.(?:test|spec)\.\w+$/.test(base)) return 3;
  if (/(?:^|\/)(?:dist|cjs|esm|umd|bundle)\//.test(lower)) return 4;
  return /(?:^|\/)(?:lib|src)\//.test(lower) ? 6 : 5;
}
