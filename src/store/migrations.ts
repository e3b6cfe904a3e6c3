import type Database from 'better-sqlite3';
import { StepError } from '../errors/errors.js';
import { SCHEMA_V1 } from './schema-v1.js';
import { BASELINES, CITATION_KINDS, COMPARED_VERDICTS, CONFIRMATIONS, EXPECTATION_OUTCOMES, GRADING, LOST_CREATES, NIGHTLY_OPERATIONS, PAIRING_INDEX, PRODUCT_VERSIONS, RUN_GROUPS, RUN_LEASES, SILENT_TAKEOVER, STAT_ANOMALIES, TARGET_EMULATOR, TRACES, UNOWNED_CONVERSATIONS } from './schema-steps.js';

/**
 * One schema step. `version` is the `PRAGMA user_version` the database has once the step is applied;
 * steps are numbered 1, 2, 3, ... in order and are never edited once released: a change is a new step.
 */
export interface Migration {
  version: number;
  name: string;
  /** SQL script, or a function for steps that must move data in code. */
  up: string | ((db: Database.Database) => void);
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'initial schema', up: SCHEMA_V1 },
  { version: 2, name: 'index of items in pairing order', up: PAIRING_INDEX },
  { version: 3, name: 'run leases', up: RUN_LEASES },
  { version: 4, name: 'run groups: shards and merged runs', up: RUN_GROUPS },
  { version: 5, name: 'stat anomalies of a reply', up: STAT_ANOMALIES },
  { version: 6, name: 'grades, citations and the judge cache', up: GRADING },
  { version: 7, name: 'targets served by an emulator', up: TARGET_EMULATOR },
  { version: 8, name: 'conversations no item owns (given-up creates that landed)', up: UNOWNED_CONVERSATIONS },
  { version: 9, name: 'creates given up, and the end-of-run check of them', up: LOST_CREATES },
  { version: 10, name: 'takeovers from a silent holder', up: SILENT_TAKEOVER },
  { version: 11, name: 'citation kinds (file, directory, commit, repository) and revisions', up: CITATION_KINDS },
  { version: 12, name: 'reruns, runs that asked nothing, attempts stopped by an interruption', up: NIGHTLY_OPERATIONS },
  { version: 13, name: 'targets\' product versions, items\' definition hashes', up: PRODUCT_VERSIONS },
  { version: 14, name: 'baselines: runs blessed by name', up: BASELINES },
  { version: 15, name: 'confirmations: re-asked questions as runs of their own', up: CONFIRMATIONS },
  { version: 16, name: 'traces of traced requests (run --trace)', up: TRACES },
  { version: 17, name: 'checks indexed with their outcome', up: EXPECTATION_OUTCOMES },
  { version: 18, name: 'the verdict of a run\'s comparison with its baseline', up: COMPARED_VERDICTS },
];

export function latestVersion(migrations: readonly Migration[] = MIGRATIONS): number {
  return migrations.at(-1)?.version ?? 0;
}

export function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Brings the database up to the last step of `migrations`, each step in its own transaction, so an
 * interrupted upgrade leaves the database at the previous version, never half-way. The caller checks
 * first that the database is not newer than `migrations`.
 */
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number {
  checkOrder(migrations);
  for (const migration of migrations) {
    if (schemaVersion(db) >= migration.version) continue;
    applyOne(db, migration);
  }
  return schemaVersion(db);
}

function applyOne(db: Database.Database, migration: Migration): void {
  // Foreign keys cannot be toggled inside a transaction, and a step that rebuilds a table needs them
  // off; violations are checked before commit instead.
  const foreignKeys = db.pragma('foreign_keys', { simple: true }) as number;
  db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      // Another process may have upgraded the file since we looked: re-check under the write lock.
      if (schemaVersion(db) >= migration.version) return;
      if (typeof migration.up === 'string') db.exec(migration.up);
      else migration.up(db);
      const violations = db.pragma('foreign_key_check') as unknown[];
      if (violations.length > 0) throw new Error(`it leaves ${violations.length} foreign key violations`);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  } catch (err) {
    throw new StepError(`upgrading the database to schema version ${migration.version} (${migration.name})`, err);
  } finally {
    db.pragma(`foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`);
  }
}

function checkOrder(migrations: readonly Migration[]): void {
  // Versions rise step by step; a gap is another branch's step, numbered when the branches meet.
  migrations.forEach((m, i) => {
    if (m.version <= (migrations[i - 1]?.version ?? 0)) throw new Error(`migration list out of order: position ${i} has version ${m.version}`);
  });
}
