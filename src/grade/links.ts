/** What an answer cites: a file (optionally a line range) or a whole repository. */
export interface Citation {
  /** Repository as written in the link, a revision included (`github.com/o/r@v1`). */
  repository: string;
  /** Path inside the repository; absent for a repository citation. */
  path?: string;
  /** 1-based, inclusive. */
  startLine?: number;
  endLine?: number;
  /** Where it was found: a link in the answer's text, or one of the turn's sources. */
  origin: 'answer' | 'source';
  /** The link as written, for people. */
  link: string;
}

/** Characters of a URL in Markdown: not space, brackets, quotes or backticks. */
const URL_CHAR = String.raw`[^\s()<>\[\]"'\x60]`;
const PATH_CHAR = String.raw`[^\s()<>\[\]"'\x60?#]`;
/** `[base]/<repo>/-/blob/<path>[?L10-20 | #L10-20 | #L10:3-20:5]`. */
const BLOB_LINK = new RegExp(
  String.raw`(?:https?://[^\s/()<>\[\]"'\x60]+)?/(${URL_CHAR}+?)/-/blob/(${PATH_CHAR}+)((?:[?#]${URL_CHAR}*)?)`,
  'g',
);
const LINE_RANGE = /(?:^|[?#&])L(\d+)(?::\d+)?(?:-L?(\d+)(?::\d+)?)?/;

/**
 * Citations of one turn: every blob link of its answer, then every source that names a file or a
 * repository. Duplicates (same repository, path and lines) are kept once, the first occurrence winning.
 */
export function extractCitations(answer: string, sources: ReadonlyArray<{ link: string }> = []): Citation[] {
  const found: Citation[] = [];
  const seen = new Set<string>();
  const add = (c: Citation) => {
    const key = [c.repository, c.path ?? '', c.startLine ?? '', c.endLine ?? ''].join('\u0000');
    if (seen.has(key)) return;
    seen.add(key);
    found.push(c);
  };
  for (const m of answer.matchAll(BLOB_LINK)) add(fileCitation(m, 'answer'));
  for (const source of sources) {
    const link = source.link.trim();
    const blob = [...link.matchAll(BLOB_LINK)][0];
    if (blob) {
      add(fileCitation(blob, 'source'));
      continue;
    }
    const repository = repositoryOf(link);
    if (repository) add({ repository, origin: 'source', link });
  }
  return found;
}

function fileCitation(m: RegExpMatchArray, origin: Citation['origin']): Citation {
  const repository = decode(m[1] as string);
  const path = decode((m[2] as string).replace(/[/.,;:!]+$/, ''));
  const range = LINE_RANGE.exec(m[3] ?? '');
  const citation: Citation = { repository, path, origin, link: m[0] };
  if (range) {
    const start = Number(range[1]);
    const end = range[2] === undefined ? start : Number(range[2]);
    citation.startLine = Math.min(start, end);
    citation.endLine = Math.max(start, end);
  }
  return citation;
}

/** `/github.com/o/r` or `https://host/github.com/o/r`: a repository has at least one slash in its name. */
function repositoryOf(link: string): string | undefined {
  let pathname = link;
  if (/^https?:\/\//i.test(link)) {
    try {
      pathname = new URL(link).pathname;
    } catch {
      return undefined;
    }
  }
  const name = decode(pathname.replace(/^\/+|\/+$/g, '').split('/-/')[0] ?? '');
  return name.includes('/') && !/\s/.test(name) ? name : undefined;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A citation as people read it: `github.com/o/r/path#L10-20`. */
export function citationLabel(c: Citation): string {
  if (c.path === undefined) return c.repository;
  const lines = c.startLine === undefined ? '' : c.endLine === c.startLine ? `#L${c.startLine}` : `#L${c.startLine}-${c.endLine}`;
  return `${c.repository}/${c.path}${lines}`;
}

/** Lines of a file as an editor counts them: a final newline does not start another line. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}
