import type { Corpus, Repository } from './corpus.js';
import { languageOf } from './languages.js';
import type { Pattern, Query } from './query.js';
import { findRanges, lineStarts, splitByLine, type Range } from './ranges.js';
import { skippedList, type Skipped } from './skipped.js';
import type { SymbolDefinition } from './symbols.js';
import type { CorpusFile } from './walk.js';

export interface ContentHit {
  type: 'content';
  repo: Repository;
  path: string;
  language: string;
  text: string;
  lineStarts: number[];
  /** Counted units: whole ranges for chunk matches, per-line pieces for line matches. */
  ranges: Range[];
  /** Where the pattern matches the path too, if it does. */
  pathRanges: Range[] | null;
}

export interface PathHit {
  type: 'path';
  repo: Repository;
  path: string;
  language: string;
  pathRanges: Range[] | null;
}

export interface RepoHit {
  type: 'repo';
  repo: Repository;
  nameRanges: Range[] | null;
}

/** A file's symbols whose names the pattern matched (all of them without a pattern). */
export interface SymbolHit {
  type: 'symbol';
  repo: Repository;
  path: string;
  language: string;
  symbols: SymbolDefinition[];
}

export type Hit = ContentHit | PathHit | RepoHit | SymbolHit;

/** The server's counting rule: a content match counts its ranges, a symbol match its symbols, a path or repo match one. */
export function hitCount(hit: Hit): number {
  if (hit.type === 'content') return hit.ranges.length;
  return hit.type === 'symbol' ? hit.symbols.length : 1;
}

export interface SearchSettings {
  /** Whether results become chunk matches; decides the counted units of content hits. */
  chunkMatches: boolean;
  /** Limit when the query has no count: filter. */
  defaultLimit: number;
  /** Timeout when the query has no timeout: filter (ms of search time, counted in work: see stepMs). */
  defaultTimeoutMs: number;
  /**
   * Search time one repository or file examined costs (ms). The timeout is a budget of work, never of real
   * time: a busy or starved machine gets the same results, later, where a real-time deadline would cut them.
   */
  stepMs: number;
  signal?: AbortSignal;
  /** Called once the repositories are chosen, before the first hit (the server reports exclusions then). */
  onResolved?: () => void;
}

/** repo: repository results; path: file paths only; content: contents; content-or-path: contents, else the path; symbol: definitions. */
type Mode = 'repo' | 'path' | 'content' | 'content-or-path' | 'symbol';

/** How many files are read ahead while the current one is matched. */
const READ_AHEAD = 8;
/**
 * Files examined between two turns of the event loop: the corpus reads synchronously (text-cache.ts), so a
 * long search lets timers and other requests (a stream's keep-alives, the other questions) run every so often.
 */
const FILES_PER_TURN = 64;

/**
 * One run of a query over a corpus. `hits()` yields results as they are found, enforcing the count
 * limit (the hit that crosses it is cut to fit), the timeout and the archived/fork policy; the public
 * fields describe the run so far and are final once `hits()` has ended.
 */
export class SearchRun {
  matchCount = 0;
  repositoriesCount = 0;
  excludedArchived = 0;
  excludedForks = 0;
  limitHit = false;
  timedOut = false;
  /** Repositories left unsearched (or searched in part) when the timeout struck. */
  private timedOutRepos: string[] = [];
  private readonly limit: number;
  private readonly budgetMs: number;
  /** Search time spent so far, in work (SearchSettings.stepMs). */
  private spentMs = 0;

  constructor(
    private readonly corpus: Corpus,
    private readonly query: Query,
    private readonly settings: SearchSettings,
  ) {
    this.limit = query.count === 'all' ? Infinity : (query.count ?? settings.defaultLimit);
    this.budgetMs = query.timeoutMs ?? settings.defaultTimeoutMs;
  }

  async *hits(): AsyncGenerator<Hit> {
    const repos = await this.selectRepositories();
    const mode = this.mode();
    for (const [index, repo] of repos.entries()) {
      const unsearched = () => repos.slice(index).map((r) => r.name);
      if (this.stopped(unsearched)) return;
      if (mode === 'repo') {
        const nameRanges = this.query.pattern ? findRanges(this.query.pattern, repo.name) : null;
        const hit: RepoHit = { type: 'repo', repo, nameRanges };
        if ((nameRanges || !this.query.pattern) && this.admit(hit)) yield hit;
        continue;
      }
      for await (const [file, loaded] of this.candidates(repo, mode)) {
        if (this.stopped(unsearched)) return;
        const hit =
          loaded === undefined
            ? this.pathHit(repo, file)
            : typeof loaded === 'string'
              ? this.contentHit(repo, file, loaded, mode)
              : this.symbolHit(repo, file, loaded);
        if (hit && this.admit(hit)) yield hit;
      }
    }
  }

  private mode(): Mode {
    const { type, pattern, file, notFile, lang, notLang } = this.query;
    if (type === 'repo') return 'repo';
    if (type === 'symbol') return 'symbol';
    if (type === 'path' || !pattern) {
      const fileScoped = file.length + notFile.length + lang.length + notLang.length > 0;
      return type !== undefined || fileScoped ? 'path' : 'repo';
    }
    return type === 'file' ? 'content' : 'content-or-path';
  }

  private async selectRepositories(): Promise<Repository[]> {
    const { repo, notRepo, archived, fork } = this.query;
    const selected: Repository[] = [];
    for (const r of await this.corpus.repositories()) {
      if (!repo.every((re) => re.test(r.name)) || notRepo.some((re) => re.test(r.name))) continue;
      if (r.archived && archived === 'no') this.excludedArchived++;
      else if (r.fork && fork === 'no') this.excludedForks++;
      else if ((archived !== 'only' || r.archived) && (fork !== 'only' || r.fork)) selected.push(r);
    }
    this.repositoriesCount = selected.length;
    this.settings.onResolved?.();
    return selected;
  }

  /**
   * Files passing the file and language filters, with what the mode needs of them, loaded a few ahead: the
   * text for contents, the symbols for definitions, nothing for paths.
   */
  private async *candidates(repo: Repository, mode: Mode): AsyncGenerator<[CorpusFile, string | readonly SymbolDefinition[] | undefined]> {
    const source = this.filtered(repo);
    const load = (file: CorpusFile): Promise<string | readonly SymbolDefinition[] | undefined> =>
      mode === 'path'
        ? Promise.resolve(undefined)
        : mode === 'symbol'
          ? this.corpus.symbols(repo, file)
          : this.corpus.readText(repo, file).then((text) => text ?? '');
    const pending: Promise<[CorpusFile, string | readonly SymbolDefinition[] | undefined]>[] = [];
    let examined = 0;
    try {
      for (;;) {
        if (++examined % FILES_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
        while (pending.length < (mode === 'path' ? 1 : READ_AHEAD)) {
          const next = await source.next();
          if (next.done) break;
          const file = next.value;
          pending.push(load(file).then((loaded) => [file, loaded]));
        }
        const head = pending.shift();
        if (!head) return;
        yield await head;
      }
    } finally {
      await source.return(undefined);
    }
  }

  private async *filtered(repo: Repository): AsyncGenerator<CorpusFile> {
    const { file, notFile, lang, notLang } = this.query;
    for await (const f of this.corpus.files(repo)) {
      if (!file.every((re) => re.test(f.path)) || notFile.some((re) => re.test(f.path))) continue;
      if (lang.length + notLang.length > 0) {
        const language = languageOf(f.path);
        if (!lang.every((l) => l === language) || notLang.includes(language)) continue;
      }
      yield f;
    }
  }

  private pathHit(repo: Repository, file: CorpusFile): PathHit | undefined {
    const pathRanges = this.query.pattern ? findRanges(this.query.pattern, file.path) : null;
    if (this.query.pattern && !pathRanges) return undefined;
    return { type: 'path', repo, path: file.path, language: languageOf(file.path), pathRanges: pathRanges ?? this.fileFilterRanges(file.path) };
  }

  /** Like the server, a `file:` filter highlights what it matched in the path (pathMatches). */
  private fileFilterRanges(path: string): Range[] | null {
    const ranges = this.query.file.flatMap((re) => findRanges({ kind: 'term', regexp: globalCopy(re) }, path) ?? []);
    return ranges.length > 0 ? ranges.sort((a, b) => a[0] - b[0] || a[1] - b[1]) : null;
  }

  private symbolHit(repo: Repository, file: CorpusFile, all: readonly SymbolDefinition[]): SymbolHit | undefined {
    const pattern = this.query.pattern;
    const symbols = all.filter((s) => !pattern || findRanges(pattern, s.name));
    return symbols.length > 0 ? { type: 'symbol', repo, path: file.path, language: languageOf(file.path), symbols } : undefined;
  }

  private contentHit(repo: Repository, file: CorpusFile, text: string, mode: Mode): Hit | undefined {
    const pattern = this.query.pattern as Pattern;
    const found = findRanges(pattern, text);
    if (!found) return mode === 'content-or-path' ? this.pathHit(repo, file) : undefined;
    const starts = lineStarts(text);
    const ranges = this.settings.chunkMatches ? found : splitByLine(text, starts, found);
    const pathRanges = (mode === 'content-or-path' ? findRanges(pattern, file.path) : null) ?? this.fileFilterRanges(file.path);
    // A file matched without anything to highlight (e.g. only through NOT) is one path result.
    if (ranges.length === 0) return { type: 'path', repo, path: file.path, language: languageOf(file.path), pathRanges };
    return { type: 'content', repo, path: file.path, language: languageOf(file.path), text, lineStarts: starts, ranges, pathRanges };
  }

  /** Counts a hit against the limit, cutting a content hit to fit; false when the limit was already reached. */
  private admit(hit: Hit): boolean {
    if (this.matchCount >= this.limit) {
      this.limitHit = true;
      return false;
    }
    const room = this.limit - this.matchCount;
    if (hit.type === 'content' && hit.ranges.length > room) {
      hit.ranges = hit.ranges.slice(0, room);
      this.limitHit = true;
    }
    if (hit.type === 'symbol' && hit.symbols.length > room) {
      hit.symbols = hit.symbols.slice(0, room);
      this.limitHit = true;
    }
    this.matchCount += hitCount(hit);
    return true;
  }

  /** What was skipped so far, in the server's order; `displayLimit` adds the display entry. */
  skipped(displayLimit?: number): Skipped[] {
    return skippedList({
      ...(this.limitHit && { limitHit: this.limit }),
      timedOut: this.timedOutRepos,
      excludedForks: this.excludedForks,
      excludedArchived: this.excludedArchived,
      ...(displayLimit !== undefined && { displayLimit }),
    });
  }

  private stopped(unsearched: () => string[]): boolean {
    if (this.limitHit || this.timedOut || this.settings.signal?.aborted) return true;
    this.spentMs += this.settings.stepMs;
    if (this.spentMs < this.budgetMs) return false;
    this.timedOut = true;
    this.timedOutRepos = unsearched();
    return true;
  }
}

function globalCopy(re: RegExp): RegExp {
  return re.global ? re : new RegExp(re.source, `${re.flags}g`);
}
