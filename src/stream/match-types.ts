/** Match types the client counts, as codes into count arrays. */
export const KNOWN_TYPES = ['content', 'path', 'symbol', 'repo', 'commit', 'person', 'team'] as const;
export type KnownType = (typeof KNOWN_TYPES)[number];

export const CONTENT = 0;
export const PATH = 1;
export const SYMBOL = 2;
export const REPO = 3;
export const COMMIT = 4;
export const PERSON = 5;
export const TEAM = 6;
/** `type` is a string the client does not know. */
export const UNKNOWN = -1;
/** `type` is missing or not a string. */
export const NO_TYPE = -2;

/** Code of the type named by `s[start, end)`, without creating a substring. */
export function typeCode(s: string, start: number, end: number): number {
  switch (end - start) {
    case 4:
      if (s.startsWith('path', start)) return PATH;
      if (s.startsWith('repo', start)) return REPO;
      if (s.startsWith('team', start)) return TEAM;
      return UNKNOWN;
    case 6:
      if (s.startsWith('symbol', start)) return SYMBOL;
      if (s.startsWith('commit', start)) return COMMIT;
      if (s.startsWith('person', start)) return PERSON;
      return UNKNOWN;
    case 7:
      return s.startsWith('content', start) ? CONTENT : UNKNOWN;
    default:
      return UNKNOWN;
  }
}

/** Sizes found in one match object; -1 where the field is absent or not an array. */
export interface MatchParts {
  /** Sum of `ranges` lengths over `chunkMatches`. */
  chunkRanges: number;
  /** Sum of `offsetAndLengths` lengths over `lineMatches`. */
  lineRanges: number;
  /** Length of `symbols`. */
  symbols: number;
  /** Length of the match's own `ranges` (commit matches). */
  ranges: number;
}

/**
 * The wire counting rule, like the server's `ResultCount`: content counts its chunk ranges (else its line
 * match offsets), symbol its symbols, commit its ranges; any of these with nothing inside still counts 1
 * (the server's "empty result counts one"), as do path and repo. person and team count 1 [guess].
 */
export function resultCount(type: number, p: MatchParts): number {
  switch (type) {
    case CONTENT: {
      const n = p.chunkRanges >= 0 ? p.chunkRanges : p.lineRanges;
      return n > 0 ? n : 1;
    }
    case SYMBOL:
      return p.symbols > 0 ? p.symbols : 1;
    case COMMIT:
      return p.ranges > 0 ? p.ranges : 1;
    default:
      return 1;
  }
}

/** Whether matches of this type name a file (repository + path). */
export function hasFile(type: number): boolean {
  return type === CONTENT || type === PATH || type === SYMBOL;
}
