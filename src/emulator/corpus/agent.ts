import type { Corpus } from './corpus.js';
import { parseQuery } from './query.js';
import { lineEnd, lineOf } from './ranges.js';
import { SearchRun } from './search.js';

export interface AgentCitation {
  repository: string;
  path: string;
  /** 1-based, as in a `?L<n>` link. */
  lineNumber: number;
  /** The matched line, trimmed and cut to 200 characters; "" for a path result. */
  preview: string;
}

const PREVIEW_CHARS = 200;
/** Compiled output is not what an agent cites. */
const NOT_SOURCE = '-file:(^|/)(build|\\.deps)/';

export interface AgentSearchOptions {
  /** Real-time budget of one search: an answer must not wait on a whole-corpus scan, whatever the time scale. */
  timeoutMs?: number;
}

/**
 * Search for the fake agent: at most `limit` citations, one per file (its first matching line), in
 * corpus order. A word that names a repository (`undici`) searches that repository only, as an agent
 * reading the question would. Repository results are left out. Throws QuerySyntaxError for a query that does not parse.
 */
export function createAgentSearch(corpus: Corpus, options: AgentSearchOptions = {}): (query: string, limit: number) => Promise<AgentCitation[]> {
  let byShortName: Map<string, string> | undefined;
  return async (query, limit) => {
    const citations: AgentCitation[] = [];
    if (limit <= 0) return citations;
    byShortName ??= new Map((await corpus.repositories()).map((r) => [r.name.slice(r.name.lastIndexOf('/') + 1).toLowerCase(), r.name]));
    const repo = byShortName.get(query.toLowerCase());
    const scoped = `${repo ? `repo:^${repo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$ ` : ''}${NOT_SOURCE} ${query}`;
    const run = new SearchRun(corpus, parseQuery(scoped), { chunkMatches: false, defaultLimit: 10_000, defaultTimeoutMs: options.timeoutMs ?? 300 });
    for await (const hit of run.hits()) {
      if (hit.type === 'path') citations.push({ repository: hit.repo.name, path: hit.path, lineNumber: 1, preview: '' });
      if (hit.type === 'content') {
        const line = lineOf(hit.lineStarts, hit.ranges[0]![0]);
        const text = hit.text.slice(hit.lineStarts[line], lineEnd(hit.text, hit.lineStarts, line));
        citations.push({ repository: hit.repo.name, path: hit.path, lineNumber: line + 1, preview: text.trim().slice(0, PREVIEW_CHARS) });
      }
      if (citations.length >= limit) break;
    }
    return citations;
  };
}
