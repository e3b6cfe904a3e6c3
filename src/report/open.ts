import { existsSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import path from 'node:path';
import { NothingToCompareError, UsageError } from '../errors/errors.js';
import { comparedVerdictWord, verdictWord } from '../model/verdict.js';
import { type RunRecord, findBaseline, findRun, findRunOffset, finishedVerdictsBefore, listBaselines, parseRunSelector, passedRunsBefore } from '../store/queries.js';
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
 * `nightly~1` the nightly before the newest nightly, `12~1` the run of run 12's suite before it; or by a
 * name blessed with `dsbench baseline bless` (`blessed:<name>`).
 * When none matches: a NothingToCompareError (exit 8) that names the database, so a report or gate of
 * nothing never passes. `window:K` names several runs: only a baseline (resolveBaseline) takes it.
 */
export function resolveRun(db: Database.Database, file: string, selector: string): RunRecord {
  const text = selector.trim();
  if (text.startsWith(BLESSED)) return blessedRun(db, file, text.slice(BLESSED.length));
  if (text.startsWith(WINDOW)) {
    throw new UsageError(`${text} pools several runs into one baseline: only a baseline takes it (dsbench compare ${text} latest, dsbench run --baseline ${text}); name one run here`);
  }
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

const BLESSED = 'blessed:';
const WINDOW = 'window:';

function blessedRun(db: Database.Database, file: string, name: string): RunRecord {
  const blessed = findBaseline(db, name);
  if (!blessed) {
    const names = listBaselines(db).map((b) => b.name);
    const there =
      names.length === 0
        ? 'none is blessed yet (dsbench baseline bless <run> --name <name>)'
        : `the names are: ${names.join(', ')} (dsbench baseline list shows their runs; dsbench baseline bless <run> --name ${name} makes this one)`;
    throw new UsageError(`no baseline named "${name}" in ${file}; ${there}`);
  }
  // The name's run cannot be gone: deleting a run deletes its names.
  return findRun(db, blessed.runId)!;
}

/** A baseline: one run, or the runs `window:K` pooled (newest first), with how many were asked for. */
export interface BaselineRuns {
  runs: RunRecord[];
  /** K of `window:K`; null for a single run. */
  window: number | null;
}

/**
 * Resolves a baseline reference. `window:K`: the last K finished runs before `candidate` of its suite, with
 * the same targets (or the target `target`), that are whole (no shard), asked something and whose night
 * verdict passed (nightVerdict: its comparison's with its baseline, else its own). Fewer than K is allowed
 * and reported by the caller; none is a UsageError (exit 2).
 */
export function resolveBaseline(db: Database.Database, file: string, selector: string, candidate: { run: RunRecord; targets: string[]; sameDb: boolean }, target?: string): BaselineRuns {
  const text = selector.trim();
  if (!text.startsWith(WINDOW)) return { runs: [resolveRun(db, file, text)], window: null };
  const k = /^\d+$/.test(text.slice(WINDOW.length)) ? Number(text.slice(WINDOW.length)) : 0;
  if (!(k >= 1)) throw new UsageError(`${text}: window takes a whole number of runs of at least 1, e.g. window:5`);
  const fits = (targets: string[]) => (target !== undefined ? targets.includes(target) : sameNames(targets, candidate.targets));
  const runs = passedRunsBefore(db, candidate.run.suiteName, candidate.sameDb ? candidate.run.id : undefined, k, fits);
  if (runs.length === 0) {
    const which = `suite ${candidate.run.suiteName}, ${target !== undefined ? `target ${target}` : `targets ${candidate.targets.join(', ')}`}${candidate.sameDb ? `, before run ${candidate.run.id}` : ''}`;
    throw new UsageError(noRunToPool(db, file, text, which, candidate.run.suiteName, candidate.sameDb ? candidate.run.id : undefined, fits));
  }
  return { runs, window: k };
}

const SEEN = 50;

/**
 * Why `window:K` found nothing to pool, and what to do: window pools only nights whose verdict passed, so the
 * night verdicts of the finished runs it passed over are named.
 */
export function noRunToPool(db: Database.Database, file: string, text: string, which: string, suite: string, beforeId: number | undefined, targetsFit: (targets: string[]) => boolean): string {
  const verdicts = finishedVerdictsBefore(db, suite, beforeId, SEEN, targetsFit);
  const counts = new Map<string, number>();
  for (const v of verdicts) {
    const word = v.compared ? `against its baseline ${comparedVerdictWord(v.exitCode)}` : verdictWord(v.exitCode);
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const seen =
    verdicts.length === 0
      ? 'there is no finished run of it'
      : `of the ${verdicts.length === SEEN ? `newest ${SEEN}` : verdicts.length} finished run${verdicts.length === 1 ? '' : 's'} of it none passed (${[...counts].map(([w, n]) => `${w}: ${n}`).join(', ')})`;
  return (
    `${text}: nothing to pool in ${file}. window pools blessed runs and finished nights whose verdict passed (${which}; judged unchanged against their own --baseline, or, run without one, every check passed), and ${seen}. ` +
    `Bless a night to start from (dsbench baseline bless RUN --name NAME; --force for a run that did not pass) and it pools, or compare with one run: an id or a label with ~N (dsbench runs --db ${file} lists the runs)`
  );
}

const sameNames = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x) => b.includes(x));

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
