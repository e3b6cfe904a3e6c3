import { linksIn, parseLink, shortRevision, type RepositoryLink } from '../answer-links.js';
import type { Citation } from '../model/grading.js';

export { lineCount } from '../answer-links.js';

/**
 * Citations of one turn: every file, folder and commit link of its answer (links to a bare repository
 * are navigation, not citations), then every source that names a file or a repository. Duplicates
 * (same kind, repository, revision, path and lines) are kept once, the first occurrence winning.
 */
export function extractCitations(answer: string, sources: ReadonlyArray<{ link: string }> = []): Citation[] {
  const found: Citation[] = [];
  const seen = new Set<string>();
  const add = (link: RepositoryLink, origin: Citation['origin']) => {
    const key = [link.kind, link.repository, link.revision ?? '', link.path ?? '', link.startLine ?? '', link.endLine ?? ''].join('\u0000');
    if (seen.has(key)) return;
    seen.add(key);
    found.push({ ...link, origin });
  };
  for (const link of linksIn(answer)) add(link, 'answer');
  for (const source of sources) {
    const link = parseLink(source.link);
    if (link) add(link, 'source');
  }
  return found;
}

/** Whether a citation counts as one: commits are recorded but are not file citations. */
export function isCheckable(c: Pick<Citation, 'kind'>): boolean {
  return c.kind !== 'commit';
}

/** A citation as people read it: `github.com/o/r@742a60d/path#L10-20`, `github.com/o/r/dir/`, `github.com/o/r commit 1a2b3c4`. */
export function citationLabel(c: Citation): string {
  if (c.kind === 'commit') return `${c.repository} commit ${shortRevision(c.revision ?? '')}`;
  const repo = c.revision === undefined ? c.repository : `${c.repository}@${shortRevision(c.revision)}`;
  if (c.path === undefined) return repo;
  if (c.kind === 'directory') return `${repo}/${c.path}${c.path === '' ? '' : '/'}`;
  const lines = c.startLine === undefined ? '' : c.endLine === c.startLine ? `#L${c.startLine}` : `#L${c.startLine}-${c.endLine}`;
  return `${repo}/${c.path}${lines}`;
}
