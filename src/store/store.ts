import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { UsageError } from '../http/errors.js';
import { type Migration, MIGRATIONS, latestVersion, migrate, schemaVersion } from './migrations.js';
import { SqliteRecorder } from './recorder.js';

export interface StoreOptions {
  /** How long a statement waits for another process's write lock before SQLITE_BUSY. */
  busyTimeoutMs?: number;
  /** The schema steps; only tests pass their own. */
  migrations?: readonly Migration[];
}

export interface Store {
  readonly path: string;
  readonly db: Database.Database;
  /** The one recorder of this connection, made on first use; closing it closes the store. */
  readonly recorder: SqliteRecorder;
  close(): void;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * Opens (creating it and its folder if missing) and upgrades the results database.
 *
 * WAL lets readers (a report while a run writes) work alongside the one writer without SQLITE_BUSY.
 * `synchronous = NORMAL` under WAL skips the fsync per commit: a killed or crashed dsbench still loses
 * nothing committed (the WAL is in the OS cache), only a power loss or OS crash can drop the last
 * commits, and the file is never corrupted either way.
 */
export function openStore(file: string, options: StoreOptions = {}): Store {
  const migrations = options.migrations ?? MIGRATIONS;
  if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  let db: Database.Database | undefined;
  try {
    db = new Database(file);
    configure(db, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
    checkVersion(db, file, migrations);
    migrate(db, migrations);
    return new SqliteStore(file, db);
  } catch (err) {
    db?.close();
    if (isSqliteCode(err, 'SQLITE_NOTADB')) {
      throw new UsageError(`${file} is not a SQLite database; pass --db with another path (or move that file away).`, { cause: err });
    }
    if (isSqliteCode(err, 'SQLITE_CANTOPEN')) {
      throw new UsageError(`cannot open ${file} as a database: is it a folder, or in a folder dsbench cannot write to?`, { cause: err });
    }
    throw err;
  }
}

function configure(db: Database.Database, busyTimeoutMs: number): void {
  // The busy timeout first: switching a fresh file to WAL takes a lock another process may hold.
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
}

function checkVersion(db: Database.Database, file: string, migrations: readonly Migration[]): void {
  const version = schemaVersion(db);
  const latest = latestVersion(migrations);
  if (version > latest) {
    throw new UsageError(
      `${file} was written by a newer dsbench (schema version ${version}, this dsbench knows up to ${latest}); ` +
        'upgrade dsbench, or pass --db with another path.',
    );
  }
  // Version 0 with tables in it is some other program's database: migrating would write into it.
  const tables = db.prepare("SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'").pluck().get() as number;
  if (version === 0 && tables > 0) {
    throw new UsageError(`${file} is a SQLite database but not a dsbench one; pass --db with another path.`);
  }
}

function isSqliteCode(err: unknown, code: string): boolean {
  return err instanceof Database.SqliteError && err.code === code;
}

class SqliteStore implements Store {
  private recorderInstance: SqliteRecorder | undefined;

  constructor(
    readonly path: string,
    readonly db: Database.Database,
  ) {}

  get recorder(): SqliteRecorder {
    this.recorderInstance ??= new SqliteRecorder(this.db);
    return this.recorderInstance;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
