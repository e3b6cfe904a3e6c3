import type { SearchHit } from './agent-search.js';
import { escapeRegExp } from './corpus/query.js';

// How the agent reads a question: the repositories, symbols, paths and keywords it searches for.

/** Words that never become keyword searches (identifiers and repository names are judged apart). */
const STOP_WORDS = new Set(
  (
    'about after again all also and any are because been before being between both but can could does did doing ' +
    'done each else even every for from get gets got had has have having her here how into its just like make makes ' +
    'many more most much must not now of off once only other our out over own same should some such than that the ' +
    'their them then there these they this those through too under until upon very was way were what when where ' +
    'which while who whom whose why will with within without would you your ' +
    'implemented implement implements implementation defined define defines definition used use uses using work works ' +
    'code codebase file files function functions method methods class classes find show explain describe tell ' +
    'repository repositories repo repos handled handle handles happen happens located live lives look looks ' +
    'called call calls part parts thing things please give list exist exists'
  ).split(' '),
);

/** Nouns after which a word names a symbol ("the Database class", "the parse function"). */
const KIND_NOUNS = new Set([
  'class', 'function', 'method', 'interface', 'type', 'enum', 'struct', 'constant', 'variable', 'hook', 'component',
  'decorator', 'macro', 'constructor', 'module', 'trait', 'symbol', 'property', 'field',
]);

/**
 * Repository short names that are also everyday words: they scope a question only when written as a
 * full name (`github.com/types/node`) or `owner/name` (`@types/node`).
 */
const GENERIC_NAMES = new Set([
  'node', 'types', 'type', 'spec', 'expect', 'runner', 'snapshot', 'spy', 'utils', 'util', 'mocker', 'once', 'buffer',
  'pump', 'bindings', 'inherits', 'core', 'common', 'shared', 'test', 'tests', 'docs', 'config', 'server', 'client',
  'api', 'app', 'lib', 'cli', 'web', 'main', 'src', 'tools', 'build', 'runtime', 'compiler', 'parser', 'events',
]);

const FILE_EXTENSION = /\.(?:[cm]?[jt]sx?|json|md|mdx|py|go|rs|c|cc|cpp|h|hpp|java|kt|rb|php|cs|swift|ya?ml|toml|css|s[ac]ss|html|sh|txt|lock|proto|sql|gyp|gypi)$/i;

const MAX_TARGETS = 2;
const MAX_KEYWORDS = 3;
const MAX_TITLE_CHARS = 60;

/** Something the question names that is searched for as written: a symbol or a file path. */
export interface Target {
  kind: 'identifier' | 'path';
  text: string;
}

export interface ResearchPlan {
  /** Repositories every search is scoped to (full names): the question's own, else the latest earlier ones. */
  repositories: string[];
  /** Identifiers and paths, searched first; the question's own, else the latest earlier question's. */
  targets: Target[];
  /** Other words of the question: a camelCase join of two adjacent ones first, then the longest. */
  keywords: string[];
  /** What the earlier questions contributed, for the answer to say so. */
  fromHistory: { repositories: string[]; targets: boolean };
}

interface Analysis {
  repositories: string[];
  targets: Target[];
  keywords: string[];
}

/**
 * Reads a question in its conversation. The repositories it names scope every search; when it names
 * none, those of the latest earlier question that named some do (a follow-up stays on the subject).
 * Identifiers and paths likewise come from the question, else from the latest earlier question that
 * had some (a follow-up says "it"). Keywords come from the question alone.
 */
export function planResearch(question: string, history: readonly string[], repositoryNames: readonly string[]): ResearchPlan {
  const resolve = repositoryResolver(repositoryNames);
  const own = analyse(question, resolve);
  const earlier = history.map((h) => analyse(h, resolve)).reverse();
  const inheritedRepositories = own.repositories.length === 0 ? (earlier.find((a) => a.repositories.length > 0)?.repositories ?? []) : [];
  const inheritedTargets = own.targets.length === 0 ? (earlier.find((a) => a.targets.length > 0)?.targets ?? []) : [];
  return {
    repositories: own.repositories.length > 0 ? own.repositories : inheritedRepositories,
    targets: own.targets.length > 0 ? own.targets : inheritedTargets,
    keywords: own.keywords,
    fromHistory: { repositories: inheritedRepositories, targets: inheritedTargets.length > 0 },
  };
}

function analyse(question: string, resolve: (word: string) => string[]): Analysis {
  const words = questionWords(question);
  const repositories: string[] = [];
  const strong: Target[] = [];
  const weak: Target[] = [];
  const keywords: Array<{ word: string; order: number }> = [];
  const seen = new Set<string>();
  words.forEach((w, i) => {
    const named = resolve(w.text);
    if (named.length > 0) {
      for (const r of named) if (!repositories.includes(r)) repositories.push(r);
      return;
    }
    // A decorator (`@Injectable`) names the symbol after the at sign.
    if (/^@[A-Za-z_$][\w$]*$/.test(w.text)) w = { text: w.text.slice(1), marked: true };
    const key = w.text.toLowerCase();
    // Product names such as "Node.js" are neither files nor symbols.
    if (seen.has(key) || /^[A-Z][A-Za-z]*\.js$/.test(w.text)) return;
    if (isPath(w)) {
      seen.add(key);
      strong.push({ kind: 'path', text: w.text });
    } else if (isIdentifier(w)) {
      seen.add(key);
      strong.push({ kind: 'identifier', text: w.text });
    } else if (/^[A-Za-z][\w-]*$/.test(w.text) && w.text.length >= 3 && !STOP_WORDS.has(key) && !KIND_NOUNS.has(key)) {
      seen.add(key);
      if (KIND_NOUNS.has(words[i + 1]?.text.toLowerCase() ?? '')) weak.push({ kind: 'identifier', text: w.text });
      else keywords.push({ word: key, order: i });
    }
  });
  // Two adjacent keywords may name a symbol together: "status codes" is likely `statusCodes` in code.
  const compound = keywords
    .filter((k, i) => keywords[i + 1]?.order === k.order + 1)
    .map((k) => `${k.word}${capitalise(keywords[keywords.indexOf(k) + 1]!.word)}`)
    .filter((c) => /^[a-z]+[A-Z][a-z]+$/.test(c) && !strong.concat(weak).some((t) => t.text.toLowerCase() === c.toLowerCase()))
    .slice(0, 1);
  keywords.sort((a, b) => b.word.length - a.word.length || a.order - b.order);
  return {
    repositories,
    targets: [...strong, ...weak].slice(0, MAX_TARGETS),
    keywords: [...compound, ...keywords.slice(0, MAX_KEYWORDS).map((k) => k.word)],
  };
}

interface Word {
  text: string;
  /** Written as `code` or as a call `name()`. */
  marked: boolean;
}

function questionWords(question: string): Word[] {
  const words: Array<Word & { at: number }> = [];
  const text = question.replace(/\[\[[^\]]*\]\]/g, ' ').replace(/`([^`\n]+)`/g, (span, inner: string, at: number) => {
    const code = inner.trim().replace(/\(\)$/, '');
    if (/^[A-Za-z_$@][\w$@.\/-]*$/.test(code)) words.push({ text: code, marked: true, at });
    return ' '.repeat(span.length);
  });
  for (const m of text.matchAll(/[A-Za-z_$@][\w$@.\/-]*(\(\))?/g)) {
    const word = m[0].replace(/\(\)$/, '').replace(/[.\/@-]+$/, '');
    if (word !== '') words.push({ text: word, marked: m[1] !== undefined, at: m.index });
  }
  return words.sort((a, b) => a.at - b.at).map(({ text: t, marked }) => ({ text: t, marked }));
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function isPath(w: Word): boolean {
  if (!FILE_EXTENSION.test(w.text) || /^[@.]/.test(w.text)) return false;
  return w.text.includes('/') || w.text.slice(0, w.text.lastIndexOf('.')).length >= 2;
}

function isIdentifier(w: Word): boolean {
  const t = w.text;
  if (!/^[A-Za-z_$][\w$.]*$/.test(t) || t.endsWith('.')) return false;
  if (w.marked) return true;
  if (/[a-z0-9][A-Z]/.test(t) || t.includes('$')) return true;
  if (/[A-Za-z0-9]_[A-Za-z0-9]|^_+[A-Za-z]/.test(t)) return true;
  // Dotted (`z.object`, `Promise.all`), not an abbreviation like "e.g".
  return /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(t) && (t.split('.').pop() ?? '').length >= 2 && !/^(?:e\.g|i\.e|etc|vs)$/i.test(t);
}

/** Maps a word to the repositories it names: full name, `owner/name` or `@owner/name`, or short name. */
function repositoryResolver(names: readonly string[]): (word: string) => string[] {
  const exact = new Map<string, string>();
  const short = new Map<string, string[]>();
  for (const name of names) {
    const lower = name.toLowerCase();
    exact.set(lower, name);
    const parts = lower.split('/');
    if (parts.length >= 3) exact.set(parts.slice(-2).join('/'), name);
    const last = parts[parts.length - 1]!;
    short.set(last, [...(short.get(last) ?? []), name]);
  }
  return (word) => {
    const lower = word.toLowerCase();
    const full = exact.get(lower) ?? exact.get(lower.replace(/^@/, ''));
    if (full && lower.includes('/')) return [full];
    // As a package is written, or capitalised at the start of a sentence; "TypeScript" is the language.
    const written = word === lower || word === capitalise(lower);
    if (!written || GENERIC_NAMES.has(lower) || STOP_WORDS.has(lower)) return [];
    return short.get(lower) ?? [];
  };
}

/** Filters that scope a search to repositories, archived ones and forks included; "" for no scope. */
export function scopeFilter(repositories: readonly string[]): string {
  if (repositories.length === 0) return '';
  const names = repositories.map(escapeRegExp);
  const pattern = names.length === 1 ? names[0]! : `(?:${names.join('|')})`;
  return `repo:^${pattern}$ archived:yes fork:yes `;
}

export function targetQuery(plan: ResearchPlan, target: Target): string {
  const scope = scopeFilter(plan.repositories);
  return target.kind === 'path' ? `${scope}file:(?:^|/)${escapeRegExp(target.text)}$` : `${scope}${target.text}`;
}

/** A keyword is looked up in the file that defines the question's subject when there is one, else in scope. */
export function keywordQuery(plan: ResearchPlan, keyword: string, within: SearchHit | undefined): string {
  if (within && !/[\s"]/.test(within.path)) {
    return `${scopeFilter([within.repository])}file:^${escapeRegExp(within.path)}$ ${keyword}`;
  }
  return `${scopeFilter(plan.repositories)}${keyword}`;
}

/** The question as the agent reads it: trigger phrases (`[[token-limit]]`, ...) are not part of it. */
export function withoutTriggers(question: string): string {
  return question.replace(/\[\[[^\]]*\]\]/g, ' ').replace(/\s+/g, ' ').trim();
}

export function titleFor(question: string): string {
  const clean = withoutTriggers(question).replace(/[?.!]+$/, '');
  if (clean === '') return 'Untitled question';
  const title = clean.length > MAX_TITLE_CHARS ? `${clean.slice(0, MAX_TITLE_CHARS - 1).trimEnd()}…` : clean;
  return title.charAt(0).toUpperCase() + title.slice(1);
}
