import { StatCache } from './stat-cache.js';
import { symbolsOf, type SymbolDefinition } from './symbols.js';
import { corpusStatKey, readCorpusText } from './text-cache.js';

/**
 * Symbols by file, kept while its stat is unchanged: otherwise each emulator would read every file of the
 * repositories a question names and find the same definitions again. 20,000 files: every file of a large
 * corpus's searched packages, a few MB.
 */
const cache = new StatCache<readonly SymbolDefinition[]>(20_000);

/** `symbolsOf(relPath, text)` for the file at `absolute`, read unless remembered; none for a vanished file. */
export function fileSymbols(absolute: string, relPath: string): readonly SymbolDefinition[] {
  const id = `${absolute}\u0000${relPath}`;
  const key = corpusStatKey(absolute);
  if (key === undefined) {
    cache.delete(id);
    return [];
  }
  const cached = cache.get(id, key);
  if (cached) return cached;
  const text = readCorpusText(absolute, key);
  if (text === undefined) return [];
  const symbols = symbolsOf(relPath, text);
  cache.set(id, key, symbols);
  return symbols;
}
