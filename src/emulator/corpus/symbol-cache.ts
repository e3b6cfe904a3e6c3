import { stat } from 'node:fs/promises';
import { StatCache, statKey } from './stat-cache.js';
import { symbolsOf, type SymbolDefinition } from './symbols.js';

/**
 * Symbols by file, kept while its stat is unchanged: otherwise each emulator would read every file of the
 * repositories a question names and find the same definitions again. 20,000 files: every file of a large
 * corpus's searched packages, a few MB.
 */
const cache = new StatCache<readonly SymbolDefinition[]>(20_000);

/** `symbolsOf(relPath, text)` for the file at `absolute`, reading its text with `read` unless remembered; none for a vanished file. */
export async function fileSymbols(absolute: string, relPath: string, read: () => Promise<string | undefined>): Promise<readonly SymbolDefinition[]> {
  const id = `${absolute}\u0000${relPath}`;
  const s = await stat(absolute).catch(() => undefined);
  if (!s) {
    cache.delete(id);
    return [];
  }
  const key = statKey(s);
  const cached = cache.get(id, key);
  if (cached) return cached;
  const text = await read();
  if (text === undefined) return [];
  const symbols = symbolsOf(relPath, text);
  cache.set(id, key, symbols);
  return symbols;
}
