import type { ContentHit, Hit } from '../corpus/search.js';
import { lineEnd, lineOf, type Range } from '../corpus/ranges.js';

export interface WireFormat {
  chunkMatches: boolean;
  /** Context lines around a chunk match. */
  contextLines: number;
  /** Longest chunk content line; negative for no limit. */
  maxLineLength: number;
}

interface Position {
  offset: number;
  line: number;
  column: number;
}

/**
 * The wire object of a hit, with at most `maxRanges` of a content hit's ranges (the display limit).
 * Keys come in the order of the server's structs, and what they tag `omitempty` is left out when empty.
 */
export function toWire(hit: Hit, format: WireFormat, maxRanges = Infinity): object {
  const { repo } = hit;
  const stars = repo.stars > 0 ? { repoStars: repo.stars } : {};
  const fetched = repo.lastFetched ? { repoLastFetched: repo.lastFetched } : {};
  const language = 'language' in hit && hit.language ? { language: hit.language } : {};
  switch (hit.type) {
    case 'repo':
      return {
        type: 'repo',
        repositoryID: repo.id,
        repository: repo.name,
        ...(hit.nameRanges && { repositoryMatches: singleLine(hit.nameRanges) }),
        branches: [''],
        ...stars,
        ...fetched,
        ...(repo.fork && { fork: true }),
        ...(repo.archived && { archived: true }),
      };
    case 'path':
      return {
        type: 'path',
        path: hit.path,
        ...(hit.pathRanges && { pathMatches: singleLine(hit.pathRanges) }),
        repositoryID: repo.id,
        repository: repo.name,
        ...stars,
        ...fetched,
        branches: [''],
        commit: repo.commit,
        ...language,
      };
    case 'symbol':
      // The server's EventSymbolMatch: no language, no highlights; each symbol links to its name's span.
      return {
        type: 'symbol',
        path: hit.path,
        repositoryID: repo.id,
        repository: repo.name,
        ...stars,
        ...fetched,
        branches: [''],
        commit: repo.commit,
        symbols: hit.symbols.map((s) => ({
          url: `/${repo.name}/-/blob/${hit.path}#L${s.line + 1}:${s.column + 1}-${s.line + 1}:${s.column + 1 + s.name.length}`,
          name: s.name,
          containerName: s.containerName,
          kind: s.kind,
          line: s.line + 1,
        })),
      };
    case 'content': {
      const ranges = hit.ranges.length > maxRanges ? hit.ranges.slice(0, maxRanges) : hit.ranges;
      return {
        type: 'content',
        path: hit.path,
        ...(hit.pathRanges && { pathMatches: singleLine(hit.pathRanges) }),
        repositoryID: repo.id,
        repository: repo.name,
        ...stars,
        ...fetched,
        branches: [''],
        commit: repo.commit,
        hunks: null,
        ...(format.chunkMatches
          ? { chunkMatches: chunkMatches(hit, ranges, format) }
          : { lineMatches: lineMatches(hit, ranges) }),
        ...language,
      };
    }
  }
}

function singleLine(ranges: Range[]): { start: Position; end: Position }[] {
  return ranges.map(([start, end]) => ({
    start: { offset: start, line: 0, column: start },
    end: { offset: end, line: 0, column: end },
  }));
}

interface LineMatch {
  line: string;
  lineNumber: number;
  offsetAndLengths: [number, number][];
}

/** Ranges here are already split per line and sorted, so lines only move forward. */
function lineMatches({ text, lineStarts }: ContentHit, ranges: Range[]): LineMatch[] {
  const result: LineMatch[] = [];
  let current: LineMatch | undefined;
  for (const [start, end] of ranges) {
    const line = lineOf(lineStarts, start);
    if (current?.lineNumber !== line) {
      current = { line: text.slice(lineStarts[line], lineEnd(text, lineStarts, line)), lineNumber: line, offsetAndLengths: [] };
      result.push(current);
    }
    current.offsetAndLengths.push([start - lineStarts[line]!, end - start]);
  }
  return result;
}

interface Chunk {
  first: number;
  last: number;
  ranges: Range[];
}

/** Chunks of matches with their context lines; chunks that overlap or touch are merged. */
function chunkMatches({ text, lineStarts }: ContentHit, ranges: Range[], format: WireFormat): object[] {
  const lastLine = lineStarts.length - 1;
  const chunks: Chunk[] = [];
  for (const range of ranges) {
    const first = Math.max(0, lineOf(lineStarts, range[0]) - format.contextLines);
    const last = Math.min(lastLine, lineOf(lineStarts, Math.max(range[0], range[1] - 1)) + format.contextLines);
    const previous = chunks.at(-1);
    if (previous && first <= previous.last + 1) {
      previous.last = Math.max(previous.last, last);
      previous.ranges.push(range);
    } else {
      chunks.push({ first, last, ranges: [range] });
    }
  }
  const position = (offset: number): Position => {
    const line = lineOf(lineStarts, offset);
    return { offset, line, column: offset - lineStarts[line]! };
  };
  return chunks.map(({ first, last, ranges: inChunk }) => {
    const raw = text.slice(lineStarts[first], lineEnd(text, lineStarts, last));
    const content = format.maxLineLength < 0 ? raw : truncateLines(raw, format.maxLineLength);
    return {
      content,
      contentStart: { offset: lineStarts[first]!, line: first, column: 0 },
      ranges: inChunk.map(([start, end]) => ({ start: position(start), end: position(end) })),
      ...(content.length < raw.length && { contentTruncated: true }),
    };
  });
}

function truncateLines(content: string, max: number): string {
  return content
    .split('\n')
    .map((line) => (line.length > max ? line.slice(0, max) : line))
    .join('\n');
}
