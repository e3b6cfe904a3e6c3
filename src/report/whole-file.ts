import { readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// Every file `report`, `compare` and `history` write appears whole or not at all: it is written to
// `<file>.partial` beside it and renamed over the file at the end (a rename is atomic on one file system), so
// a kill mid-write leaves the previous file or none, never a cut one that parses as complete.

export const PARTIAL = '.partial';

/** Where a file is written before its rename. */
export function partialOf(file: string): string {
  return `${file}${PARTIAL}`;
}

/** Writes `data` to `file` whole: beside it first, then renamed over it. */
export function writeWhole(file: string, data: string): void {
  const partial = partialOf(file);
  try {
    writeFileSync(partial, data);
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

/** Unfinished files a killed writer left in `dir` (`*.partial`), removed; returns their names. */
export function removeStalePartials(dir: string): string[] {
  const stale = readdirSync(dir).filter((name) => name.endsWith(PARTIAL));
  for (const name of stale) rmSync(path.join(dir, name), { force: true });
  return stale;
}
