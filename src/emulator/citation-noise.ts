import type { Rng } from './random.js';

/** How far past a file's end a garbled line number points. */
const LINE_OFFSET = 100_000;

/**
 * Makes some of an answer's file links wrong, as a real agent's sometimes are: each link, with
 * probability `rate`, cites a line far past the file's end or the same path in another repository of
 * `repositories` (a line when there is no other). Deterministic for a given rng.
 */
export function garbleCitations(markdown: string, rate: number, rng: Rng, repositories: readonly string[], linkBase: string): string {
  if (rate <= 0) return markdown;
  const base = linkBase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const fileLink = new RegExp(`\\[([^\\]\\n]*)\\]\\(${base}/([^)\\s]+?)/-/blob/([^)\\s#?]+)#L(\\d+)\\)`, 'g');
  return markdown.replace(fileLink, (link, label: string, repo: string, path: string, line: string) => {
    if (rng.next() >= rate) return link;
    const other = repositories.find((r) => r !== repo && r > repo) ?? repositories.find((r) => r !== repo);
    if (rng.next() < 0.5 && other !== undefined) return `[${label}](${linkBase}/${other}/-/blob/${path}#L${line})`;
    const far = Number(line) + LINE_OFFSET;
    return `[${label.replace(/:\d+$/, `:${far}`)}](${linkBase}/${repo}/-/blob/${path}#L${far})`;
  });
}
