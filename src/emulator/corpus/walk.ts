import { open, readdir } from 'node:fs/promises';
import path from 'node:path';

const MAX_FILE_BYTES = 1024 * 1024;
const SNIFF_BYTES = 8 * 1024;
/** Folders never searched inside a repository: VCS metadata and nested installs (their own repositories). */
const SKIPPED_DIRS = new Set(['.git', '.hg', '.svn', 'node_modules']);

export interface CorpusFile {
  /** Path relative to the repository root, with `/` separators. */
  path: string;
  size: number;
}

/**
 * Searchable files of one repository, in a stable (sorted) order: regular files of at most 1 MB whose
 * first 8 KB hold no NUL byte. Symbolic links are not followed, so a walk cannot loop.
 */
export async function* walkFiles(root: string, rel = ''): AsyncGenerator<CorpusFile> {
  const entries = await readdir(path.join(root, rel), { withFileTypes: true }).catch(() => []);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) yield* walkFiles(root, child);
    } else if (entry.isFile()) {
      const size = await textFileSize(path.join(root, child));
      if (size !== undefined) yield { path: child, size };
    }
  }
}

/** Size of a text file small enough to search; undefined for binary, oversized or unreadable files. */
async function textFileSize(file: string): Promise<number | undefined> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const { size } = await handle.stat();
    if (size > MAX_FILE_BYTES) return undefined;
    const buffer = Buffer.alloc(Math.min(size, SNIFF_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).includes(0) ? undefined : size;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
