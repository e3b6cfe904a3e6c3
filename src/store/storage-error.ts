import path from 'node:path';
import Database from 'better-sqlite3';
import { StepError, StorageError } from '../errors/errors.js';



const IO_CODES: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EEXIST: 'a part of the path exists and is not a folder',
  EISDIR: 'the path is a folder',
};

/**
 * The StorageError for an error of SQLite or of the file system on `file`, or undefined when it is
 * neither (a bug). `writing` says whether dsbench was writing (a run) or only reading (a report).
 */
export function storageErrorFrom(error: unknown, file: string, writing = true): StorageError | undefined {
  if (error instanceof StorageError) return error;
  if (error instanceof StepError) {
    // Each step is one transaction: a step that failed left the database as it was before it.
    const inner = storageErrorFrom(error.cause, file, writing);
    return inner && new StorageError(file, `${inner.problem}, while ${error.step}; that step was undone`, inner.todo, { cause: error });
  }
  const folder = path.dirname(path.resolve(file));
  const elsewhere = 'or pass --db with a path on a writable disk';
  if (error instanceof Database.SqliteError) {
    const code = error.code;
    if (code === 'SQLITE_FULL') {
      return new StorageError(file, 'the disk is full (or the database reached its size limit)', `Free space on the disk of ${folder}, ${elsewhere}`, { cause: error });
    }
    if (code.startsWith('SQLITE_READONLY')) {
      return new StorageError(file, 'the database is read-only (the file, its folder or the file system cannot be written)', `Make ${file} and ${folder} writable, ${elsewhere}`, { cause: error });
    }
    if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
      return new StorageError(file, 'not a SQLite database, or a corrupted one', 'Pass --db with another path, or move that file away (keep a copy if it held results)', { cause: error });
    }
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
      return new StorageError(file, 'locked by another program for longer than dsbench waits', 'Close whatever holds it (another dsbench, a SQLite browser) and try again', { cause: error });
    }
    if (code.startsWith('SQLITE_CANTOPEN')) {
      return new StorageError(
        file,
        writing ? 'cannot be opened: it is a folder, or its folder cannot be written' : 'cannot be opened for reading',
        writing ? `Check that ${folder} exists and is writable, ${elsewhere}` : `Check that ${file} is a file dsbench can read`,
        { cause: error },
      );
    }
    if (code.startsWith('SQLITE_IOERR')) {
      return new StorageError(file, `a disk error (${code})`, `Check the disk of ${folder} (full, removed or failing), ${elsewhere}`, { cause: error });
    }
    return undefined;
  }
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  if (errno !== undefined && errno in IO_CODES) {
    return new StorageError(file, `cannot create or write ${folder}: ${IO_CODES[errno]}`, `Pass --db with a path in a folder dsbench can write`, { cause: error });
  }
  return undefined;
}

/** The results databases this process opened (not only those still open: a command closes its own before its error is reported). */
const opened = new Set<string>();

export function noteOpened(file: string): void {
  if (file !== ':memory:') opened.add(file);
}

/**
 * A SQLite failure that surfaced outside the store (a report's query that met a corrupted page, say) as the
 * StorageError naming the databases this process opened; undefined for anything else. File-system errors are
 * left alone here: they may be of any file (a report's output folder).
 */
export function unnamedStorageError(error: unknown): StorageError | undefined {
  if (opened.size === 0 || !(error instanceof Database.SqliteError || error instanceof StepError)) return undefined;
  return storageErrorFrom(error, [...opened].join(' or '));
}
