import { createHash } from 'node:crypto';
import { symbolsOf, type SymbolDefinition } from './symbols.js';

/** Files whose symbols are kept: every file of a large corpus's searched packages, a few MB. */
const MAX_FILES = 20_000;

/**
 * Symbols by absolute file path, with a digest of the text they were read from: each emulator a process
 * starts (a test file starts dozens) would otherwise find the same definitions in the same files again, and
 * the line patterns cost far more than the digest. A file whose text changed gets a new digest, so its
 * symbols are found again. The least recently used files are dropped beyond MAX_FILES.
 */
const cache = new Map<string, { digest: string; symbols: readonly SymbolDefinition[] }>();

/** `symbolsOf(relPath, text)`, remembered for the file at `absolute`. */
export function fileSymbols(absolute: string, relPath: string, text: string): readonly SymbolDefinition[] {
  const key = `${absolute}\u0000${relPath}`;
  const digest = createHash('sha1').update(text).digest('base64');
  const cached = cache.get(key);
  cache.delete(key);
  const symbols = cached?.digest === digest ? cached.symbols : symbolsOf(relPath, text);
  cache.set(key, { digest, symbols });
  if (cache.size > MAX_FILES) cache.delete(cache.keys().next().value!);
  return symbols;
}
