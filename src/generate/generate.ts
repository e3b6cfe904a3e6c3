import { createHash } from 'node:crypto';
import type { GeneratedKind, Provenance, SuiteProvenance } from '../config/generated-schema.js';
import { IncompleteSearchError, UsageError } from '../errors/errors.js';
import { mulberry32 } from '../random.js';
import { VERSION } from '../version.js';
import { fairSymbols } from './fair.js';
import { definitionQuery, exactRepo, filesQuery, type IndexSearch, type IndexedSymbol } from './index-search.js';

export interface GenerateOptions {
  search: IndexSearch;
  /** Repository names or `repo:` patterns, as given. */
  repos: readonly string[];
  count: number;
  kinds: readonly GeneratedKind[];
  seed: number | string;
  /** Where the index is: the instance URL, or "emulator". */
  instance: string;
  api: 'versioned' | 'legacy';
  /** Add a `reference:` to definition questions, for suites graded by a judge too. */
  reference: boolean;
  /** Tolerance of count questions: an amount or a percentage ("10%"). */
  tolerance: number | string;
  /** Share of a usage question's files the answer must cite. */
  minRecall: number;
  name: string;
  now: Date;
  /** One line about something left out (a search that hit a limit). */
  warn: (line: string) => void;
}

/** A usage question lists at most this many files (a longer list is not a fair question). */
export const MAX_USAGE_FILES = 10;
const MIN_USAGE_FILES = 2;
/** Count questions are about names in at least this many files: one is a definition, not a count. */
const MIN_COUNT_FILES = 2;
/** Searches tried per usage or count question asked for, beyond a base, so a scarce kind ends. */
const TRIES_PER_QUESTION = 4;
const BASE_TRIES = 20;

export interface GeneratedQuestion {
  id: string;
  question: string;
  tags: string[];
  expect: Record<string, unknown>;
  generated: Provenance;
}

export interface GeneratedSuite {
  name: string;
  description: string;
  generated: SuiteProvenance;
  defaults: { api: 'versioned' | 'legacy' };
  questions: GeneratedQuestion[];
}

/**
 * Mines `count` questions from the index alone (streaming searches, no model): the same seed on the same
 * index gives the same questions and expectations. Throws UsageError when a repository is not indexed,
 * a pattern selects none, or the index holds fewer fair questions than asked for (saying how many).
 */
export async function generateSuite(o: GenerateOptions): Promise<GeneratedSuite> {
  const repositories = await resolveRepositories(o.search, o.repos);
  const at = o.now.toISOString();
  const pools = new Map<string, IndexedSymbol[]>();
  const pool = async (repo: string) => {
    let symbols = pools.get(repo);
    if (!symbols) {
      symbols = shuffled(fairSymbols(await o.search.symbols(repo)), seedOf(o.seed, repo));
      pools.set(repo, symbols);
    }
    return symbols;
  };
  const used = new Set<string>();
  const ids = new Set<string>();
  const questions: GeneratedQuestion[] = [];
  const found: Record<GeneratedKind, number> = { definition: 0, usage: 0, count: 0 };
  const quotas = quotasOf(o.count, o.kinds);
  let limited = 0;

  const provenance = (kind: GeneratedKind, symbol: IndexedSymbol, query: string, revision: string): Provenance => ({
    kind,
    query,
    repository: symbol.repository,
    revision,
    symbol: symbol.name,
    match: { path: symbol.path, line: symbol.line, kind: symbol.kind, ...(symbol.containerName && { containerName: symbol.containerName }) },
    generatedAt: at,
    instance: o.instance,
  });
  const add = (kind: GeneratedKind, symbol: IndexedSymbol, question: string, expect: Record<string, unknown>, generated: Provenance) => {
    used.add(key(kind, symbol));
    found[kind]++;
    questions.push({ id: uniqueId(ids, kind, symbol), question, tags: ['generated', kind], expect, generated });
  };

  // Each kind asks for its share; when one runs short, the others make up for it while they have more.
  const targets = { ...quotas };
  const cursors = new Map(o.kinds.map((k) => [k, new Map(repositories.map((r) => [r, 0]))]));
  const tries: Record<GeneratedKind, number> = { definition: 0, usage: 0, count: 0 };
  for (let pass = 0; pass < 2 && questions.length < o.count; pass++) {
    if (pass === 1) for (const k of o.kinds) targets[k] = found[k] + (o.count - questions.length);
    for (const kind of o.kinds) {
      const open = cursors.get(kind)!;
      const maxTries = quotas[kind] * TRIES_PER_QUESTION + BASE_TRIES;
      const more = () => found[kind] < targets[kind] && questions.length < o.count && (kind === 'definition' || tries[kind] < maxTries);
      // Round robin over the repositories, so each gives its share while it has candidates.
      while (more() && open.size > 0) {
        for (const repo of [...open.keys()]) {
          if (!more()) break;
          const symbols = await pool(repo);
          let next = open.get(repo)!;
          while (next < symbols.length && used.has(key(kind, symbols[next]!))) next++;
          const symbol = symbols[next];
          if (!symbol) {
            open.delete(repo);
            continue;
          }
          open.set(repo, next + 1);
          if (kind === 'definition') {
            add(kind, symbol, definitionQuestion(symbol), definitionExpect(symbol, o.reference), provenance(kind, symbol, definitionQuery(repo, symbol.name), symbol.revision));
            continue;
          }
          tries[kind]++;
          const query = filesQuery(repo, symbol.name);
          let files: string[];
          let revision: string;
          try {
            ({ files, revision } = await o.search.files(repo, symbol.name));
          } catch (error) {
            if (!(error instanceof IncompleteSearchError)) throw error;
            limited++;
            o.warn(`left out \`${symbol.name}\` of ${repo}: ${error.message}`);
            continue;
          }
          if (kind === 'usage') {
            const users = usageFiles(files, symbol.path);
            if (users.length < MIN_USAGE_FILES || users.length > MAX_USAGE_FILES) continue;
            add(kind, symbol, `Which files in ${repo} use \`${symbol.name}\`?`, { citesRecall: { files: users, min: o.minRecall } }, provenance(kind, symbol, query, revision || symbol.revision));
          } else {
            if (files.length < MIN_COUNT_FILES) continue;
            add(kind, symbol, `How many files in ${repo} have \`${symbol.name}\` in them?`, { number: { expected: files.length, tolerance: o.tolerance } }, provenance(kind, symbol, query, revision || symbol.revision));
          }
        }
      }
    }
  }

  if (questions.length < o.count) {
    const fair = [...pools.values()].reduce((n, p) => n + p.length, 0);
    throw tooFewQuestions(o, { questions: questions.length, found, quotas, repositories: repositories.length, fair, limited });
  }
  return {
    name: o.name,
    description: `Questions mined from the index of ${o.instance} by dsbench suite generate; their expectations come from exhaustive searches (see generated: under each question).`,
    generated: { by: `dsbench ${VERSION}`, instance: o.instance, seed: o.seed, generatedAt: at, repositories, kinds: [...o.kinds] },
    defaults: { api: o.api },
    questions,
  };
}

/** What the index gave, by kind, when it held fewer fair questions than asked for, and what to do. */
function tooFewQuestions(
  o: GenerateOptions,
  got: { questions: number; found: Record<GeneratedKind, number>; quotas: Record<GeneratedKind, number>; repositories: number; fair: number; limited: number },
): UsageError {
  const byKind = o.kinds.map((k) => `${k} ${got.found[k]} of ${got.quotas[k]}`).join(', ');
  return new UsageError(
    `asked for ${o.count} questions, but the index gave only ${got.questions} (${byKind}) from ${got.repositories} ${got.repositories === 1 ? 'repository' : 'repositories'} ` +
      `with ${got.fair} fair symbols${got.limited > 0 ? `; ${got.limited} searches hit a limit and were left out` : ''}. Lower --count, or add repositories (--repo) or kinds (--kinds)`,
  );
}

/** The repositories the `--repo` values select, sorted; an error names the value that selects none. */
async function resolveRepositories(search: IndexSearch, given: readonly string[]): Promise<string[]> {
  const all = new Set<string>();
  for (const value of given) {
    const pattern = value.startsWith('repo:') ? value.slice('repo:'.length) : exactRepo(value);
    if (pattern.trim() === '') throw new UsageError(`--repo ${value}: the pattern is empty`);
    const names = await search.repositories(pattern);
    if (names.length === 0) {
      throw new UsageError(
        value.startsWith('repo:')
          ? `--repo ${value}: the pattern matches no repository the instance indexes`
          : `--repo ${value}: the instance does not index this repository; list what it indexes with dsbench search "type:repo count:all"`,
      );
    }
    for (const n of names) all.add(n);
  }
  return [...all].sort();
}

/** Questions per kind: an even share, the first kinds taking the remainder. */
function quotasOf(count: number, kinds: readonly GeneratedKind[]): Record<GeneratedKind, number> {
  const quotas: Record<GeneratedKind, number> = { definition: 0, usage: 0, count: 0 };
  kinds.forEach((k, i) => (quotas[k] = Math.floor(count / kinds.length) + (i < count % kinds.length ? 1 : 0)));
  return quotas;
}

/** Files that use a symbol: those where its name appears, but the one defining it, minified files and maps. */
export function usageFiles(files: readonly string[], definedIn: string): string[] {
  return files.filter((f) => f !== definedIn && !/\.min\.[^/]+$|\.map$/i.test(f));
}

export function definitionQuestion(s: IndexedSymbol): string {
  const what = s.kind.toUpperCase() === 'METHOD' && s.containerName ? `the \`${s.name}\` method of \`${s.containerName}\`` : `\`${s.name}\``;
  return `Where is ${what} defined in ${s.repository}, and what does it do?`;
}

export function definitionExpect(s: IndexedSymbol, reference: boolean): Record<string, unknown> {
  return {
    contains: [s.name],
    cites: [s.path, s.name],
    ...(reference && { reference: referenceOf(s) }),
  };
}

export function referenceOf(s: IndexedSymbol): string {
  const kind = s.kind.toLowerCase();
  const of = s.containerName ? ` of \`${s.containerName}\`` : '';
  return `\`${s.name}\`, a ${kind}${of}, is defined in ${s.repository} in ${s.path} at line ${s.line}.`;
}

/** A symbol is asked about once per kind. */
function key(kind: GeneratedKind, s: IndexedSymbol): string {
  return `${kind}\u0000${s.repository}\u0000${s.name}`;
}

function uniqueId(ids: Set<string>, kind: GeneratedKind, s: IndexedSymbol): string {
  const base = `${kind}-${s.repository.split('/').at(-1)}-${s.name}`.replace(/[^A-Za-z0-9._-]+/g, '-');
  let id = base;
  for (let n = 2; ids.has(id); n++) id = `${base}-${n}`;
  ids.add(id);
  return id;
}

function seedOf(seed: number | string, repository: string): number {
  return createHash('sha256').update(`${seed}\u0000${repository}`).digest().readUInt32BE(0);
}

/** Fisher-Yates with the seeded generator: the same seed, the same order. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = items.slice();
  const random = mulberry32(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

