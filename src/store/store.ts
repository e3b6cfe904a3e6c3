import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { type Migration, MIGRATIONS, latestVersion, migrate, schemaVersion } from './migrations.js';
import { SqliteRecorder } from './recorder.js';
import { noteOpened, storageErrorFrom } from './storage-error.js';
import { StorageError } from '../errors/errors.js';

export interface StoreOptions {
  /** How long a statement waits for another process's write lock before SQLITE_BUSY. */
  busyTimeoutMs?: number;
  /** The schema steps; only tests pass their own. */
  migrations?: readonly Migration[];
  /** Read only (reports): nothing is created or written, except a one-time schema upgrade. */
  readOnly?: boolean;
  /** Largest page cache of this connection, KiB (default SQLite's, as built: 16 MB). */
  pageCacheKiB?: number;
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
  noteOpened(file);
  if (options.readOnly) return openReadOnly(file, options, migrations);
  let db: Database.Database | undefined;
  try {
    if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    db = new Database(file);
    configure(db, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
    setPageCache(db, options);
    checkVersion(db, file, migrations);
    migrate(db, migrations);
    return new SqliteStore(file, db);
  } catch (err) {
    db?.close();
    throw storageErrorFrom(err, file) ?? err;
  }
}

function setPageCache(db: Database.Database, options: StoreOptions): void {
  if (options.pageCacheKiB !== undefined) db.pragma(`cache_size = -${Math.max(1, Math.floor(options.pageCacheKiB))}`);
}

/**
 * Opens an existing database for reading only, so reports work on a read-only file or file system.
 * One whose schema is older is upgraded first, which needs it writable once.
 */
function openReadOnly(file: string, options: StoreOptions, migrations: readonly Migration[]): Store {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS))}`);
    setPageCache(db, options);
    checkVersion(db, file, migrations);
    const behind = schemaVersion(db) < latestVersion(migrations);
    if (!behind) return new SqliteStore(file, db);
    db.close();
  } catch (err) {
    db?.close();
    if (err instanceof Database.SqliteError && err.code === 'SQLITE_CANTOPEN') {
      const copy = snapshotOf(file, migrations);
      if (copy) return copy;
    }
    throw storageErrorFrom(err, file, false) ?? err;
  }
  try {
    openStore(file, { ...options, readOnly: false }).close();
  } catch (err) {
    if (err instanceof StorageError) {
      throw new StorageError(file, `its schema is older than this dsbench's and must be upgraded once, but ${err.problem}`, err.todo, { cause: err });
    }
    throw err;
  }
  return openReadOnly(file, options, migrations);
}

/**
 * A WAL database closed cleanly has no -shm file, and SQLite cannot create one in a folder it cannot write
 * (a read-only file system): it then refuses even to read. Nothing can be writing it there, so a private
 * copy in the temporary folder is the same data, upgraded there when its schema is older (the file itself
 * cannot be); it is deleted on close. Undefined if it cannot be copied.
 */
function snapshotOf(file: string, migrations: readonly Migration[]): Store | undefined {
  let folder: string | undefined;
  let db: Database.Database | undefined;
  try {
    folder = mkdtempSync(path.join(os.tmpdir(), 'dsbench-read-'));
    const copy = path.join(folder, path.basename(file));
    copyFileSync(file, copy);
    if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
    db = new Database(copy, { fileMustExist: true });
    checkVersion(db, file, migrations);
    migrate(db, migrations);
    const removeFolder = folder;
    return new SqliteStore(file, db, () => rmSync(removeFolder, { recursive: true, force: true }));
  } catch (err) {
    db?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
    // A database of a newer dsbench, or some other program's, is that, wherever it is read.
    if (err instanceof StorageError) throw err;
    return undefined;
  }
}

const WAL_AUTOCHECKPOINT_PAGES = 10_000;

function configure(db: Database.Database, busyTimeoutMs: number): void {
  // The busy timeout first: switching a fresh file to WAL takes a lock another process may hold.
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // A run commits once per turn of the event loop, each commit rewriting the same hot pages (the tables'
  // last pages, their indexes); a checkpoint copies each page of the WAL into the file once. SQLite's
  // 1,000 pages made a run checkpoint every few seconds and spend twice the CPU in its commits; 10,000
  // (a WAL of at most 40 MB on disk, removed as the database closes) leaves one every few tens of seconds.
  db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  db.pragma('foreign_keys = ON');
}

function checkVersion(db: Database.Database, file: string, migrations: readonly Migration[]): void {
  const version = schemaVersion(db);
  const latest = latestVersion(migrations);
  if (version > latest) {
    throw new StorageError(file, `written by a newer dsbench (schema version ${version}, this dsbench knows up to ${latest})`, 'Upgrade dsbench, or pass --db with another path');
  }
  // Version 0 with tables in it is some other program's database: migrating would write into it.
  const tables = db.prepare("SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'").pluck().get() as number;
  if (version === 0 && tables > 0) {
    throw new StorageError(file, 'a SQLite database, but not a dsbench one', 'Pass --db with another path');
  }
}

class SqliteStore implements Store {
  private recorderInstance: SqliteRecorder | undefined;

  constructor(
    readonly path: string,
    readonly db: Database.Database,
    private readonly onClose?: () => void,
  ) {}

  get recorder(): SqliteRecorder {
    this.recorderInstance ??= named(() => new SqliteRecorder(this.db, this.path), this.path);
    return this.recorderInstance;
  }

  /** Commits what the recorder recorded, then closes (a close checkpoints the WAL: it writes too). */
  close(): void {
    try {
      this.recorderInstance?.close();
    } finally {
      try {
        if (this.db.open) named(() => this.db.close(), this.path);
      } finally {
        this.onClose?.();
      }
    }
  }
}

/** Runs `work`, a SQLite or file-system failure of it turned into a StorageError naming the database. */
function named<T>(work: () => T, file: string): T {
  try {
    return work();
  } catch (error) {
    throw storageErrorFrom(error, file) ?? error;
  }
}

