import pLimit from 'p-limit';
import { DsbenchError, HttpStatusError } from '../errors/errors.js';
import type { Transport } from '../http/transport.js';
import { shortRevision } from '../answer-links.js';
import { citationLabel, isCheckable, lineCount } from './links.js';
import type { Citation } from '../model/grading.js';
import type { CheckedCitation } from '../model/grading.js';

type Lookup = { kind: 'found'; lines: number } | { kind: 'missing' } | { kind: 'error'; message: string };

/**
 * Checks citations against an instance through its raw file endpoint (`/<repo>[@<rev>]/-/raw/<path>`, a
 * folder's entries one a line): does the repository exist at the revision the link names, the file or
 * folder, the lines. Each (repository, revision, path) is fetched at most once per checker (one checker
 * per run and target), at most `concurrency` at a time. Commit links are recorded, never fetched.
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
    if (!isCheckable(c)) return { ...c, status: 'unchecked', reason: 'a commit link: recorded, not a file citation' };
    const unchecked = (l: { message: string }): CheckedCitation => ({ ...c, status: 'unchecked', reason: `could not check: ${l.message}` });
    const invalid = (reason: string): CheckedCitation => ({ ...c, status: 'invalid', reason });
    const valid = (reason: string): CheckedCitation => ({ ...c, status: 'valid', reason });
    const at = c.revision === undefined ? '' : ` at ${shortRevision(c.revision)}`;
    const root = await this.lookup(c.repository, c.revision, '', signal);
    if (root.kind === 'error') return unchecked(root);
    if (root.kind === 'missing') {
      if (c.revision === undefined) return invalid(`repository ${c.repository} not found`);
      const head = await this.lookup(c.repository, undefined, '', signal);
      if (head.kind === 'error') return unchecked(head);
      return invalid(head.kind === 'missing' ? `repository ${c.repository} not found` : `revision ${c.revision} not found in ${c.repository}`);
    }
    if (c.path === undefined) return valid(`repository exists${at}`);
    const entry = c.path === '' ? root : await this.lookup(c.repository, c.revision, c.path, signal);
    if (entry.kind === 'error') return unchecked(entry);
    const where = `${c.repository}${c.revision === undefined ? '' : `@${shortRevision(c.revision)}`}`;
    if (c.kind === 'directory') {
      if (entry.kind === 'missing') return invalid(`directory ${c.path || '/'} not found in ${where}`);
      return valid(`directory exists${at} (${entry.lines} entries)`);
    }
    if (entry.kind === 'missing') return invalid(`file ${c.path} not found in ${where}`);
    if (c.startLine === undefined) return valid(`file exists${at}`);
    const end = c.endLine ?? c.startLine;
    const lines = c.startLine === end ? `line ${end}` : `lines ${c.startLine}-${end}`;
    if (c.startLine < 1 || end > entry.lines) return invalid(`${lines} beyond the end of the file (${entry.lines} lines${at})`);
    return valid(`${lines} of ${entry.lines} exist${at}`);
  }

  private lookup(repository: string, revision: string | undefined, path: string, signal?: AbortSignal): Promise<Lookup> {
    const key = [repository, revision ?? '', path].join('\u0000');
    let found = this.lookups.get(key);
    if (!found) {
      found = this.limit(() => this.fetch(key, rawPath(repository, revision, path), signal));
      this.lookups.set(key, found);
    }
    return found;
  }

  private async fetch(key: string, url: string, signal?: AbortSignal): Promise<Lookup> {
    this.fetches++;
    try {
      const reply = await this.transport.request({ operation: 'citations.raw', method: 'GET', path: url, headers: { accept: 'text/plain' }, ...(signal && { signal }) });
      return { kind: 'found', lines: lineCount(reply.text) };
    } catch (error) {
      if (error instanceof HttpStatusError && error.status === 404) return { kind: 'missing' };
      // Not remembered: a later citation of the same file tries again.
      this.lookups.delete(key);
      return { kind: 'error', message: error instanceof DsbenchError ? error.message : String(error) };
    }
  }
}

/** `/<repository>[@<revision>]/-/raw/<path>`, each part encoded. */
export function rawPath(repository: string, revision: string | undefined, path: string): string {
  return `/${encodePath(repository)}${revision === undefined ? '' : `@${encodeURIComponent(revision)}`}/-/raw/${encodePath(path)}`;
}

function encodePath(text: string): string {
  return text.split('/').map(encodeURIComponent).join('/');
}

export interface TurnCitations {
  /** All of them, commit links included. */
  citations: CheckedCitation[];
  valid: number;
  invalid: number;
  unchecked: number;
  /** valid / (valid + invalid); undefined when nothing could be checked. */
  validity: number | undefined;
}

/** Counts of a turn's citations; commit links are kept in the list but counted nowhere. */
export function summarize(citations: CheckedCitation[]): TurnCitations {
  const counted = citations.filter(isCheckable);
  const valid = counted.filter((c) => c.status === 'valid').length;
  const invalid = counted.filter((c) => c.status === 'invalid').length;
  return { citations, valid, invalid, unchecked: counted.length - valid - invalid, validity: valid + invalid === 0 ? undefined : valid / (valid + invalid) };
}

/**
 * Recall of the citations a suite requires (`cites:`). A path is cited when a resolving citation's path
 * ends with it (whole segments; the repository may be included); a symbol when it appears on a line of
 * the answer that carries a resolving citation.
 */
export function citesChecks(required: readonly string[], answer: string, checked: CheckedCitation[]): Array<{ passed: boolean; reason: string }> {
  const valid = checked.filter((c) => c.status === 'valid' && isCheckable(c));
  const lines = answer.split('\n').filter((l) => checked.some((c) => l.includes(c.link)));
  return required.map((want) => {
    if (isPath(want)) {
      const matches = (c: CheckedCitation) => c.path !== undefined && c.path !== '' && [c.path, `${c.repository}/${c.path}`].some((p) => p === want || p.endsWith(`/${want}`));
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
