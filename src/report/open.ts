import { existsSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import path from 'node:path';
import { NothingToCompareError, UsageError } from '../errors/errors.js';
import { type RunRecord, findRun, findRunOffset, parseRunSelector } from '../store/queries.js';
import { type Store, openStore } from '../store/store.js';

/** Where `dsbench run` records by default, and where reports look. */
export const DEFAULT_DB = 'results/dsbench.db';

/**
 * Where a report of `db` goes without --out: a folder beside the database, so the reports of two databases
 * never mix. The default database's are `report-12`; another database's carry its name: `other-report-12`.
 */
export function outputDir(db: string, name: string): string {
  const stem = path.basename(db).replace(/\.[^.]*$/, '');
  return path.join(path.dirname(db), stem === path.basename(DEFAULT_DB, '.db') ? name : `${stem}-${name}`);
}

/**
 * Opens an existing results database for reading. Unlike openStore, a missing file is an error
 * (a report of an empty database created by mistake would only hide a wrong --db).
 */
export function openResults(file: string): Store {
  if (!existsSync(file)) {
    throw new UsageError(`no results database at ${file}: run a suite first (dsbench run), or pass --db with the database's path.`);
  }
  if (statSync(file).isDirectory()) throw new UsageError(`${file} is a folder, not a results database; pass --db with the database file.`);
  return openStore(file, { readOnly: true });
}

/**
 * Finds a run by `latest`, id or label, optionally `~N` runs back: `latest~1` is the run before the newest,
 * `nightly~1` the nightly before the newest nightly, `12~1` the run of run 12's suite before it.
 * When none matches: a NothingToCompareError (exit 8) that names the database, so a report or gate of
 * nothing never passes.
 */
export function resolveRun(db: Database.Database, file: string, selector: string): RunRecord {
  const text = selector.trim();
  // A label that itself ends in ~N wins over the ~N syntax.
  const back = /^(.+)~(\d+)$/.exec(text);
  if (back && findRun(db, text)) return findRun(db, text)!;
  const baseText = back ? back[1]! : text;
  const offset = back ? Number(back[2]) : 0;
  const parsed = parseRunSelector(baseText);
  const hint = `dsbench runs --db ${file} lists the runs.`;
  const run = findRun(db, parsed);
  if (!run) {
    if (parsed === 'latest') throw new NothingToCompareError(`no runs in ${file} yet. Run a suite first, or pass --db with another database.`);
    if (typeof parsed === 'number') throw new NothingToCompareError(`no run ${parsed} in ${file}; ${hint}`);
    throw new NothingToCompareError(`no run labelled "${parsed}" in ${file} (a run is named by its id, its label, or latest, with ~N for N runs back); ${hint}`);
  }
  if (offset === 0) return run;
  const earlier =
    parsed === 'latest'
      ? findRunOffset(db, {}, offset)
      : typeof parsed === 'number'
        ? findRunOffset(db, { suite: run.suiteName, atMostId: run.id }, offset)
        : findRunOffset(db, { label: parsed }, offset);
  if (!earlier) throw new NothingToCompareError(`${text}: there are not ${offset} earlier runs of that kind in ${file}; ${hint}`);
  return earlier;
}

/**
 * Runs `work` inside one read transaction, so every query sees the same snapshot even while a run is
 * writing to the database (WAL: the writer is not blocked).
 */
export async function inSnapshot<T>(db: Database.Database, work: () => Promise<T>): Promise<T> {
  db.exec('BEGIN DEFERRED');
  try {
    // A deferred transaction takes its snapshot at its first read; take it now.
    db.prepare('SELECT count(*) FROM runs').get();
    return await work();
  } finally {
    if (db.inTransaction) db.exec('COMMIT');
  }
}
