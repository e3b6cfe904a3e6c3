import type { Rng } from './random.js';

/** How far past a file's end a garbled line number points. */
const LINE_OFFSET = 100_000;

/**
 * Makes some of an answer's file links wrong, as a real agent's sometimes are: each link with a line
 * range, with probability `rate`, cites lines far past the file's end or the same path in another
 * repository of `repositories` (lines when there is no other). Links keep their form (`/r/` prefix or
 * not, `@<rev>`); a link moved to another repository names no revision. Deterministic for a given rng.
 */
export function garbleCitations(markdown: string, rate: number, rng: Rng, repositories: readonly string[], linkBase: string): string {
  if (rate <= 0) return markdown;
  const base = linkBase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const fileLink = new RegExp(`\\[([^\\]\\n]*)\\]\\(${base}(/r)?/([^)\\s@]+?)(@[^/)\\s]+)?/-/blob/([^)\\s#?]+)\\?L(\\d+)(?:-L(\\d+))?\\)`, 'g');
  return markdown.replace(fileLink, (link, label: string, prefix: string | undefined, repo: string, revision: string | undefined, path: string, start: string, end: string | undefined) => {
    if (rng.next() >= rate) return link;
    const lines = `?L${start}${end === undefined ? '' : `-L${end}`}`;
    const other = repositories.find((r) => r !== repo && r > repo) ?? repositories.find((r) => r !== repo);
    if (rng.next() < 0.5 && other !== undefined) return `[${label}](${linkBase}${prefix ?? ''}/${other}/-/blob/${path}${lines})`;
    const far = Number(start) + LINE_OFFSET;
    const farLines = `?L${far}${end === undefined ? '' : `-L${Number(end) + LINE_OFFSET}`}`;
    return `[${label.replace(/:\d+$/, `:${far}`)}](${linkBase}${prefix ?? ''}/${repo}${revision ?? ''}/-/blob/${path}${farLines})`;
  });
}
