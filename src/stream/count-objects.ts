import type { MatchBatch } from './batch.js';
import { hashRange, type Hash64 } from './hash.js';
import { UNKNOWN, resultCount, typeCode, type MatchParts } from './match-types.js';
import { utf8ToLatin1 } from './text.js';

const parts: MatchParts = { chunkRanges: -1, lineRanges: -1, symbols: -1, ranges: -1 };
const repo: Hash64 = { hi: 0, lo: 0 };
const path: Hash64 = { hi: 0, lo: 0 };

/**
 * Counts parsed match objects with the same rule and the same hashes as `MatchScanner` (names hashed as their
 * UTF-8 bytes): the fallback for events the scanner does not handle.
 */
export function countObjects(items: readonly unknown[], batch: MatchBatch): void {
  for (const item of items) {
    if (!isRecord(item) || typeof item.type !== 'string') {
      batch.invalid++;
      continue;
    }
    const type = typeCode(item.type, 0, item.type.length);
    if (type === UNKNOWN) {
      batch.addUnknown(item.type);
      continue;
    }
    parts.chunkRanges = nestedLength(item.chunkMatches, 'ranges');
    parts.lineRanges = nestedLength(item.lineMatches, 'offsetAndLengths');
    parts.symbols = Array.isArray(item.symbols) ? item.symbols.length : -1;
    parts.ranges = Array.isArray(item.ranges) ? item.ranges.length : -1;
    batch.addMatch(type, resultCount(type, parts), hashed(item.repository, repo), hashed(item.path, path));
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sum of the lengths of `key` arrays over the object elements of `value`; -1 when `value` is not an array. */
function nestedLength(value: unknown, key: string): number {
  if (!Array.isArray(value)) return -1;
  let n = 0;
  for (const element of value) {
    const inner = isRecord(element) ? element[key] : undefined;
    if (Array.isArray(inner)) n += inner.length;
  }
  return n;
}

function hashed(value: unknown, out: Hash64): Hash64 | undefined {
  if (typeof value !== 'string') return undefined;
  const bytes = utf8ToLatin1(value);
  hashRange(bytes, 0, bytes.length, out);
  return out;
}
