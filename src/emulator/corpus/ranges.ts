import type { Pattern } from './query.js';

/** A half-open [start, end) span of string indices (UTF-16 code units). */
export type Range = [start: number, end: number];

/**
 * Where a pattern matches in a text: null when it does not match; an array (possibly empty, for a
 * match through NOT alone) of the occurrences of the terms that made it match, sorted by start.
 */
export function findRanges(pattern: Pattern, text: string): Range[] | null {
  const ranges = evaluate(pattern, text);
  if (ranges && pattern.kind !== 'term') ranges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return ranges;
}

function evaluate(pattern: Pattern, text: string): Range[] | null {
  switch (pattern.kind) {
    case 'term':
      return occurrences(pattern.regexp, text);
    case 'and': {
      const all: Range[] = [];
      for (const child of pattern.children) {
        const found = evaluate(child, text);
        if (!found) return null;
        all.push(...found);
      }
      return all;
    }
    case 'or': {
      let any: Range[] | null = null;
      for (const child of pattern.children) {
        const found = evaluate(child, text);
        if (found) (any ??= []).push(...found);
      }
      return any;
    }
    case 'not':
      return evaluate(pattern.child, text) ? null : [];
  }
}

function occurrences(regexp: RegExp, text: string): Range[] | null {
  const found: Range[] = [];
  regexp.lastIndex = 0;
  for (let m = regexp.exec(text); m; m = regexp.exec(text)) {
    if (m[0].length === 0) regexp.lastIndex++;
    else found.push([m.index, m.index + m[0].length]);
  }
  return found.length > 0 ? found : null;
}

/** Start index of every line; a text ending in "\n" has no further line. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1 && i + 1 < text.length; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** The 0-based line holding an index. */
export function lineOf(starts: number[], index: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= index) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** End of a line's text: the index of its "\n", or the end of the text. */
export function lineEnd(text: string, starts: number[], line: number): number {
  const next = starts[line + 1];
  return next === undefined ? (text.endsWith('\n') ? text.length - 1 : text.length) : next - 1;
}

/** Splits ranges at line breaks, as line matches report them; pieces left empty are dropped. */
export function splitByLine(text: string, starts: number[], ranges: Range[]): Range[] {
  const pieces: Range[] = [];
  let spansLines = false;
  for (const [start, end] of ranges) {
    const first = lineOf(starts, start);
    for (let line = first; line < starts.length && starts[line]! < end; line++) {
      const from = Math.max(start, starts[line]!);
      const to = Math.min(end, lineEnd(text, starts, line));
      if (to > from) pieces.push([from, to]);
      spansLines ||= line > first;
    }
  }
  // Pieces of a multi-line range may land after a later range that starts on an earlier line.
  return spansLines ? pieces.sort((a, b) => a[0] - b[0] || a[1] - b[1]) : pieces;
}
