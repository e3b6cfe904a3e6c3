import { z } from 'zod';
import { DsbenchError, IncompleteSearchError, UsageError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import type { Transport } from '../http/transport.js';
import { runSearch, type SearchResult } from '../stream/index.js';

/** A symbol as the index reports it, with the 1-based line of its name. */
export interface IndexedSymbol {
  repository: string;
  path: string;
  revision: string;
  name: string;
  kind: string;
  containerName: string;
  line: number;
}

/** What an exhaustive search for a name found: the files, sorted, and the revision they were seen at. */
export interface FilesFound {
  files: string[];
  revision: string;
}


const SymbolSchema = z.object({ name: z.string(), kind: z.string().default(''), containerName: z.string().default(''), url: z.string().default(''), line: z.number().int().optional() });
const MatchSchema = z.object({
  type: z.string(),
  repository: z.string(),
  path: z.string().optional(),
  commit: z.string().optional(),
  symbols: z.array(SymbolSchema).nullable().optional(),
});

/** `^name$` for a repository name: one repository, whatever its name holds. */
export function exactRepo(name: string): string {
  return `^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
}

/** The query for one symbol's definitions, run again by `suite verify`. */
export function definitionQuery(repository: string, name: string): string {
  return `repo:${exactRepo(repository)} type:symbol case:yes /^${escapeRegex(name)}$/ count:all archived:yes fork:yes`;
}

/** The query for the files where a name appears as a whole word, case-sensitive. */
export function filesQuery(repository: string, name: string): string {
  return `repo:${exactRepo(repository)} type:file case:yes /\\b${escapeRegex(name)}\\b/ count:all archived:yes fork:yes`;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * The instance's index as a suite generator reads it: exhaustive streaming searches only (`count:all`),
 * each required to end complete, so nothing written is a guess. Counts its requests.
 */
export class IndexSearch {
  requests = 0;

  constructor(
    private readonly transport: Transport,
    private readonly timeoutMs: number,
  ) {}

  /** Full names of the repositories a name or `repo:` pattern selects, sorted; [] when none. */
  async repositories(pattern: string): Promise<string[]> {
    const names = new Set<string>();
    await this.search(`repo:${pattern} type:repo count:all archived:yes fork:yes`, (m) => {
      if (m.type === 'repo') names.add(m.repository);
    });
    return [...names].sort();
  }

  /** Every symbol the index knows in one repository, in file and line order. */
  async symbols(repository: string): Promise<IndexedSymbol[]> {
    return this.symbolsOf(`repo:${exactRepo(repository)} type:symbol count:all archived:yes fork:yes`);
  }

  /** The files of a repository where a name appears as a whole word. */
  files(repository: string, name: string): Promise<FilesFound> {
    return this.filesOf(filesQuery(repository, name), repository);
  }

  /** The files of one repository a content search finds, sorted. */
  async filesOf(query: string, repository: string): Promise<FilesFound> {
    const files = new Set<string>();
    let revision = '';
    await this.search(query, (m) => {
      if (m.repository !== repository || m.path === undefined || (m.type !== 'content' && m.type !== 'path')) return;
      files.add(m.path);
      revision ||= m.commit ?? '';
    });
    return { files: [...files].sort(), revision };
  }

  /** The symbols a symbol search finds, in repository, file and line order. */
  async symbolsOf(query: string): Promise<IndexedSymbol[]> {
    const found: IndexedSymbol[] = [];
    await this.search(query, (m) => {
      if (m.type !== 'symbol' || m.path === undefined) return;
      for (const s of m.symbols ?? []) {
        const line = s.line ?? Number(/#L(\d+)/.exec(s.url)?.[1] ?? 0);
        if (line > 0) found.push({ repository: m.repository, path: m.path, revision: m.commit ?? '', name: s.name, kind: s.kind, containerName: s.containerName, line });
      }
    });
    return found.sort((a, b) => cmp(a.repository, b.repository) || cmp(a.path, b.path) || a.line - b.line || cmp(a.name, b.name));
  }

  private async search(query: string, onMatch: (m: z.output<typeof MatchSchema>) => void): Promise<SearchResult> {
    this.requests++;
    const result = await runSearch(this.transport, { query }, {
      timeoutMs: this.timeoutMs,
      onMatches: (matches) => {
        for (const raw of matches) {
          const m = MatchSchema.safeParse(raw);
          if (m.success) onMatch(m.data);
        }
      },
    });
    if (result.failure || result.verdict === 'http_error' || result.verdict === 'truncated') {
      throw new DsbenchError(`search \`${query}\` failed: ${result.failure?.message ?? result.verdict}`, (result.failure?.exitCode as ExitCode | undefined) ?? ExitCode.unreachable);
    }
    if (result.verdict === 'error') {
      const why = [...result.alerts.map((a) => `${a.title}${a.description ? `: ${a.description}` : ''}`), ...result.errors].join('; ');
      throw new UsageError(`the instance refused the search \`${query}\`: ${why || 'an error event'}`);
    }
    if (result.verdict !== 'complete') {
      const reasons = result.skipped.map((s) => s.title).join(', ') || 'a filter says it is not exhaustive';
      throw new IncompleteSearchError(query, `verdict ${result.verdict}: ${reasons}`);
    }
    return result;
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
