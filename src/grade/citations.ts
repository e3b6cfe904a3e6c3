import pLimit from 'p-limit';
import { DsbenchError, HttpStatusError } from '../http/errors.js';
import type { Transport } from '../http/transport.js';
import { citationLabel, lineCount, type Citation } from './links.js';
import type { CheckedCitation } from './store.js';

type Lookup = { kind: 'found'; lines: number } | { kind: 'missing' } | { kind: 'error'; message: string };

/**
 * Checks citations against an instance through its raw file endpoint (`/<repo>/-/raw/<path>`): does
 * the repository exist, the file, the lines. Each file and repository is fetched at most once per
 * checker (one checker per run and target), at most `concurrency` at a time.
 */
export class CitationChecker {
  private readonly lookups = new Map<string, Promise<Lookup>>();
  private readonly limit: ReturnType<typeof pLimit>;
  /** Raw fetches made, for measurements. */
  fetches = 0;

  constructor(
    private readonly transport: Transport,
    concurrency: number,
  ) {
    this.limit = pLimit(concurrency);
  }

  async check(c: Citation, signal?: AbortSignal): Promise<CheckedCitation> {
    const repo = await this.lookup(c.repository, '', signal);
    if (repo.kind === 'error') return { ...c, status: 'unchecked', reason: `could not check: ${repo.message}` };
    if (repo.kind === 'missing') return { ...c, status: 'invalid', reason: `repository ${c.repository} not found` };
    if (c.path === undefined) return { ...c, status: 'valid', reason: 'repository exists' };
    const file = await this.lookup(c.repository, c.path, signal);
    if (file.kind === 'error') return { ...c, status: 'unchecked', reason: `could not check: ${file.message}` };
    if (file.kind === 'missing') return { ...c, status: 'invalid', reason: `file ${c.path} not found in ${c.repository}` };
    if (c.startLine === undefined) return { ...c, status: 'valid', reason: 'file exists' };
    const end = c.endLine ?? c.startLine;
    const lines = c.startLine === end ? `line ${end}` : `lines ${c.startLine}-${end}`;
    if (c.startLine < 1 || end > file.lines) return { ...c, status: 'invalid', reason: `${lines} beyond the end of the file (${file.lines} lines)` };
    return { ...c, status: 'valid', reason: `${lines} of ${file.lines} exist` };
  }

  private lookup(repository: string, path: string, signal?: AbortSignal): Promise<Lookup> {
    const key = `${repository}\u0000${path}`;
    let found = this.lookups.get(key);
    if (!found) {
      found = this.limit(() => this.fetch(repository, path, signal));
      this.lookups.set(key, found);
    }
    return found;
  }

  private async fetch(repository: string, path: string, signal?: AbortSignal): Promise<Lookup> {
    this.fetches++;
    const url = `/${encodePath(repository)}/-/raw/${encodePath(path)}`;
    try {
      const reply = await this.transport.request({ operation: 'citations.raw', method: 'GET', path: url, headers: { accept: 'text/plain' }, ...(signal && { signal }) });
      return { kind: 'found', lines: lineCount(reply.text) };
    } catch (error) {
      if (error instanceof HttpStatusError && error.status === 404) return { kind: 'missing' };
      // Not remembered: a later citation of the same file tries again.
      this.lookups.delete(`${repository}\u0000${path}`);
      return { kind: 'error', message: error instanceof DsbenchError ? error.message : String(error) };
    }
  }
}

function encodePath(text: string): string {
  return text.split('/').map(encodeURIComponent).join('/');
}

export interface TurnCitations {
  citations: CheckedCitation[];
  valid: number;
  invalid: number;
  unchecked: number;
  /** valid / (valid + invalid); undefined when nothing could be checked. */
  validity: number | undefined;
}

export function summarize(citations: CheckedCitation[]): TurnCitations {
  const valid = citations.filter((c) => c.status === 'valid').length;
  const invalid = citations.filter((c) => c.status === 'invalid').length;
  return { citations, valid, invalid, unchecked: citations.length - valid - invalid, validity: valid + invalid === 0 ? undefined : valid / (valid + invalid) };
}

/**
 * Recall of the citations a suite requires (`cites:`). A path is cited when a resolving citation's path
 * ends with it (whole segments; the repository may be included); a symbol when it appears on a line of
 * the answer that carries a resolving citation.
 */
export function citesChecks(required: readonly string[], answer: string, checked: CheckedCitation[]): Array<{ passed: boolean; reason: string }> {
  const valid = checked.filter((c) => c.status === 'valid');
  const lines = answer.split('\n').filter((l) => l.includes('/-/blob/'));
  return required.map((want) => {
    if (isPath(want)) {
      const matches = (c: CheckedCitation) => c.path !== undefined && [c.path, `${c.repository}/${c.path}`].some((p) => p === want || p.endsWith(`/${want}`));
      const good = valid.find(matches);
      if (good) return { passed: true, reason: `${want} is cited (${citationLabel(good)})` };
      const bad = checked.find(matches);
      return { passed: false, reason: bad ? `${want} is cited, but the citation does not resolve: ${bad.reason}` : `${want} is not cited` };
    }
    const word = new RegExp(`(?<![\\w$])${want.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w$])`);
    const line = lines.find((l) => word.test(l) && valid.some((c) => l.includes(c.link)));
    if (line) return { passed: true, reason: `${want} is cited next to a resolving link` };
    return { passed: false, reason: lines.some((l) => word.test(l)) ? `${want} is cited only next to links that do not resolve` : `${want} is not cited` };
  });
}

function isPath(text: string): boolean {
  return text.includes('/') || /\.[A-Za-z0-9]{1,6}$/.test(text);
}
