import type Database from 'better-sqlite3';
import { decoder, pick, selectList } from './columns.js';
import { TARGETS } from './tables.js';

// The product version each target of a run reported at its start (migration 13). Readers of a run's versions
// (runs, reports, compare, history and its change points) all come here.

export interface TargetProductVersion {
  target: string;
  /** null: unknown (see `error`), or a run recorded before versions were (both null). */
  version: string | null;
  /** Why it could not be read. */
  error: string | null;
  /** Another version a resume of the run read (the run keeps the first). */
  onResume: string | null;
}

const VERSION_READ = pick(TARGETS, 'name', 'productVersion', 'productVersionError', 'productVersionOnResume');
const readVersion = decoder(VERSION_READ);

/** Each target's product version, in the order the run listed its targets. */
export function runProductVersions(db: Database.Database, runId: number): TargetProductVersion[] {
  return db
    .prepare(`SELECT ${selectList(VERSION_READ)} FROM targets WHERE run_id = ? ORDER BY rowid`)
    .all(runId)
    .map((row) => {
      const r = readVersion(row);
      return { target: r.name, version: r.productVersion, error: r.productVersionError, onResume: r.productVersionOnResume };
    });
}

/** `6.9.2`, `unknown`, `6.9.2 (7.0.1 on resume)`. */
export function productVersionText(v: Pick<TargetProductVersion, 'version' | 'onResume'>): string {
  return `${v.version ?? 'unknown'}${v.onResume !== null ? ` (${v.onResume} on resume)` : ''}`;
}

/** A run's versions in one phrase: the one version when all targets agree, else each target's. */
export function runVersionsText(versions: readonly TargetProductVersion[]): string {
  const texts = versions.map(productVersionText);
  if (texts.length === 0) return 'unknown';
  if (texts.every((t) => t === texts[0])) return texts[0]!;
  return versions.map((v, i) => `${v.target} ${texts[i]}`).join(', ');
}
