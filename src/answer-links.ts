/*
 * The one reader of the links Deep Search answers and sources carry. Real answers link like
 * `https://host/r/github.com/org/repo@<40-hex>/-/blob/<path>?L12-L21`, and also with `?L62`,
 * `?L245-252`, `#L10:3-20:5`, no revision, no `/r/` prefix, `/-/tree/` folders, `/-/commit/` links,
 * and now and then a malformed `/.r/` or a relative `r/` prefix. `/r/` is a prefix of the web app's
 * links and `@<rev>` the revision the answer read: the repository is `github.com/org/repo` in all of them.
 * Grading (citations, `cites:`), `sourcesInclude` and the emulator's judge all read links here.
 */

export type LinkKind = 'file' | 'directory' | 'commit' | 'repository';

/** A link to a repository of the instance, or to something in it. */
export interface RepositoryLink {
  kind: LinkKind;
  /** `github.com/org/repo`: no `/r/` or `.r/` prefix, no revision. */
  repository: string;
  /** As written after `@` (a commit, branch or tag); for a commit link, the commit. */
  revision?: string;
  /** Inside the repository: the file, or the folder (`''` for its root); absent for commits and repositories. */
  path?: string;
  /** 1-based, inclusive, start <= end. */
  startLine?: number;
  endLine?: number;
  /** The link as written. */
  link: string;
}

/** Characters of a URL in Markdown: not space, brackets, quotes or backticks. */
const URL_CHAR = String.raw`[^\s()<>\[\]{}"'\x60|]`;
/**
 * Candidates in free text: a run of URL characters that contains `/-/blob/`, `/-/tree/` or `/-/commit/`,
 * starting where a URL can start (line start, space, bracket, quote).
 */
const CANDIDATE = new RegExp(String.raw`(?<![^\s(<\[{"'\x60|*])${URL_CHAR}*?/-/(?:blob|tree|commit)/${URL_CHAR}*`, 'g');
const LINE_RANGE = /(?:^|[?#&])L(\d+)(?::\d+)?(?:-L?(\d+)(?::\d+)?)?/;
/** Web-app prefixes before the repository name, the malformed `.r/` included. */
const PREFIX = /^(?:\.?r\/)+/;
/** Sentence punctuation that ends a bare link in prose rather than belonging to it. */
const TRAILING = /[.,;:!*_~]+$/;

/**
 * Reads one link. Undefined for a link that is not to an instance repository: another site (a repository
 * name's first segment is a code host, `github.com`, so `https://gitlab.com/org/repo/-/blob/x` is not
 * one), a search page, or nothing at all.
 */
export function parseLink(written: string): RepositoryLink | undefined {
  const link = written.trim().replace(TRAILING, '');
  let rest = link;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(rest);
  if (scheme) rest = rest.slice(scheme[0].length);
  else if (/^[a-z][a-z0-9+.-]*:/i.test(rest)) return undefined;
  const cut = rest.search(/[?#]/);
  const suffix = cut < 0 ? '' : rest.slice(cut);
  const pathname = (cut < 0 ? rest : rest.slice(0, cut)).replace(/^\/+/, '').replace(PREFIX, '');
  const [head = '', ...tail] = pathname.split('/-/');
  const at = head.indexOf('@');
  const repository = decode((at < 0 ? head : head.slice(0, at)).replace(/\/+$/, ''));
  if (!isRepositoryName(repository)) return undefined;
  const revision = at < 0 ? undefined : decode(head.slice(at + 1).replace(/\/+$/, '')) || undefined;
  const found: RepositoryLink = { kind: 'repository', repository, ...(revision !== undefined && { revision }), link };
  if (tail.length === 0) return found;
  const inner = tail.join('/-/');
  const slash = inner.indexOf('/');
  const verb = slash < 0 ? inner : inner.slice(0, slash);
  const target = decode(slash < 0 ? '' : inner.slice(slash + 1)).replace(/\/+$/, '');
  switch (verb) {
    case 'blob':
    case 'raw':
      if (target === '') return undefined;
      return { ...found, kind: 'file', path: target, ...lines(suffix) };
    case 'tree':
      return { ...found, kind: 'directory', path: target };
    case 'commit':
      return /^[0-9a-f]{7,40}$/i.test(target) ? { kind: 'commit', repository, revision: target.toLowerCase(), link } : undefined;
    default:
      return undefined;
  }
}

/** Every file, folder and commit link of a text (answers: Markdown links, autolinks, bare URLs), in order. */
export function linksIn(text: string): RepositoryLink[] {
  const found: RepositoryLink[] = [];
  for (const m of text.matchAll(CANDIDATE)) {
    const parsed = parseLink(m[0]);
    if (parsed) found.push(parsed);
  }
  return found;
}

/** `github.com/org/repo`: at least two segments, the first a host name. */
function isRepositoryName(name: string): boolean {
  const segments = name.split('/');
  return segments.length >= 2 && segments.every((s) => s !== '' && s !== '.' && s !== '..') && /^[\w-]+(?:\.[\w-]+)+(?::\d+)?$/.test(segments[0]!) && !/[\s@]/.test(name);
}

function lines(suffix: string): Pick<RepositoryLink, 'startLine' | 'endLine'> {
  const range = LINE_RANGE.exec(suffix);
  if (!range) return {};
  const start = Number(range[1]);
  const end = range[2] === undefined ? start : Number(range[2]);
  return { startLine: Math.min(start, end), endLine: Math.max(start, end) };
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Short form of a revision for people: a commit's first 7 hex digits, anything else as it is. */
export function shortRevision(revision: string): string {
  return /^[0-9a-f]{40}$/i.test(revision) ? revision.slice(0, 7) : revision;
}

/** Lines of a file as an editor counts them (a final newline starts no other line): what a cited range is checked against. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}
