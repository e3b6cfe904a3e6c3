import { stat } from 'node:fs/promises';
import { symbolsOf, type SymbolDefinition } from './symbols.js';
import { statKey } from './walk.js';

/** Files whose symbols are kept: every file of a large corpus's searched packages, a few MB. */
const MAX_FILES = 20_000;

/**
 * Symbols by absolute file path, with the stat they were read under (modification and change time, size,
 * inode): each emulator a process starts (a test file starts dozens) would otherwise read every file of the
 * repositories a question names and find the same definitions again. A file whose stat changed is read
 * again. The least recently used files are dropped beyond MAX_FILES.
 */
const cache = new Map<string, { key: string; symbols: readonly SymbolDefinition[] }>();

/** `symbolsOf(relPath, text)` for the file at `absolute`, reading its text with `read` unless remembered; none for a vanished file. */
export async function fileSymbols(absolute: string, relPath: string, read: () => Promise<string | undefined>): Promise<readonly SymbolDefinition[]> {
  const s = await stat(absolute).catch(() => undefined);
  const id = `${absolute}\u0000${relPath}`;
  const cached = cache.get(id);
  cache.delete(id);
  if (!s) return [];
  const key = statKey(s);
  let symbols = cached?.key === key ? cached.symbols : undefined;
  if (!symbols) {
    const text = await read();
    if (text === undefined) return [];
    symbols = symbolsOf(relPath, text);
  }
  cache.set(id, { key, symbols });
  if (cache.size > MAX_FILES) cache.delete(cache.keys().next().value!);
  return symbols;
}
