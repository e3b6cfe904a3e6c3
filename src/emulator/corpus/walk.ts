import { closeSync, fstatSync, openSync, readdirSync, readSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { StatCache, statKey } from './stat-cache.js';
import { corpusStatKey, rememberText } from './text-cache.js';

const MAX_FILE_BYTES = 1024 * 1024;
const SNIFF_BYTES = 8 * 1024;
/** Folders never searched inside a repository: VCS metadata and nested installs (their own repositories). */
const SKIPPED_DIRS = new Set(['.git', '.hg', '.svn', 'node_modules']);

export interface CorpusFile {
  /** Path relative to the repository root, with `/` separators. */
  path: string;
  size: number;
}

/** A folder's entries as a walk needs them, sorted by name. */
interface Listing {
  dirs: Set<string>;
  names: string[];
}

/**
 * What walks found, by absolute path: a folder's entries and a file's searchable size. A changed stat
 * (modification or change time, size, inode) makes an entry stale, so a walk sees what a fresh one would.
 * Bounded well above the default corpus (about 500 folders and 4,000 files).
 */
const listings = new StatCache<Listing>(50_000);
const sizes = new StatCache<{ size: number | undefined }>(500_000);

/**
 * Searchable files of one repository, in a stable (sorted) order: regular files of at most 1 MB whose
 * first 8 KB hold no NUL byte. Symbolic links are not followed, so a walk cannot loop.
 */
export async function* walkFiles(root: string, rel = ''): AsyncGenerator<CorpusFile> {
  const dir = path.join(root, rel);
  const { dirs, names } = listing(dir);
  for (const name of names) {
    const child = rel === '' ? name : `${rel}/${name}`;
    if (dirs.has(name)) {
      if (!SKIPPED_DIRS.has(name)) yield* walkFiles(root, child);
    } else {
      const size = textFileSize(path.join(dir, name));
      if (size !== undefined) yield { path: child, size };
    }
  }
}

/** A folder's sub-folders and regular files (links and other kinds left out); none when unreadable. */
function listing(dir: string): Listing {
  const key = corpusStatKey(dir);
  const cached = key !== undefined && listings.get(dir, key);
  if (cached) return cached;
  let entries: Dirent[] = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    // An unreadable folder lists nothing.
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const found: Listing = { dirs: new Set(), names: [] };
  for (const entry of entries) {
    if (entry.isDirectory()) found.dirs.add(entry.name);
    else if (!entry.isFile()) continue;
    found.names.push(entry.name);
  }
  if (key !== undefined) listings.set(dir, key, found);
  else listings.delete(dir);
  return found;
}

/** Size of a text file small enough to search; undefined for binary, oversized or unreadable files. */
function textFileSize(file: string): number | undefined {
  // A file this process never walked is read at once (its key comes from the open file): a stat first would
  // only cost an extra call for each file of a process's first walk.
  if (sizes.has(file)) {
    const key = corpusStatKey(file);
    const cached = key !== undefined && sizes.get(file, key);
    if (cached) return cached.size;
  }
  const sniffed = sniff(file);
  if (sniffed) sizes.set(file, sniffed.key, { size: sniffed.size });
  else sizes.delete(file);
  return sniffed?.size;
}

/**
 * The file's stat key, and its size if it is a text file small enough to search; undefined when unreadable.
 * Synchronous, as the corpus's other calls (text-cache.ts).
 */
function sniff(file: string): { key: string; size: number | undefined } | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const s = fstatSync(fd);
    const key = statKey(s);
    if (s.size > MAX_FILE_BYTES) return { key, size: undefined };
    const buffer = Buffer.alloc(Math.min(s.size, SNIFF_BYTES));
    const head = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0));
    if (head.includes(0)) return { key, size: undefined };
    // A small file was read whole: its text is kept, so a search reading it next need not open it again.
    if (head.length === s.size) rememberText(file, key, head.toString('utf8'));
    return { key, size: s.size };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
