import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { MIGRATIONS, latestVersion, migrate } from '../../src/store/migrations.js';
import { questionExportSql } from '../../src/store/queries.js';
import { StorageError } from '../../src/errors/errors.js';
import { openStore } from '../../src/store/store.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsbench-store-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('openStore', () => {
  it('creates the folder and the schema, in WAL mode (checkpointed every 10,000 pages) with a busy timeout, NORMAL sync and foreign keys', () => {
    const file = path.join(dir, 'results', 'nested', 'dsbench.db');
    const store = openStore(file, { busyTimeoutMs: 1234 });
    try {
      expect(fs.existsSync(file)).toBe(true);
      expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(store.db.pragma('busy_timeout', { simple: true })).toBe(1234);
      expect(store.db.pragma('synchronous', { simple: true })).toBe(1);
      expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);
      expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(store.db.pragma('user_version', { simple: true })).toBe(latestVersion());
      const tables = store.db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all();
      expect(tables).toEqual(
        ['baselines', 'citations', 'expectations', 'grades', 'items', 'judge_cache', 'lost_creates', 'quota_snapshots', 'requeued_attempts', 'run_leases', 'run_shards', 'runs', 'searches', 'sources', 'suggested_followups', 'targets', 'traces', 'turns', 'unowned_conversations'].sort(),
      );
      expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(store.db.pragma('foreign_key_check')).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('caps the page cache when asked (a run keeps 2 MB), else keeps SQLite\'s default', () => {
    const file = path.join(dir, 'dsbench.db');
    const capped = openStore(file, { pageCacheKiB: 2048 });
    try {
      expect(capped.db.pragma('cache_size', { simple: true })).toBe(-2048);
    } finally {
      capped.close();
    }
    const plain = openStore(file);
    try {
      expect(plain.db.pragma('cache_size', { simple: true })).toBe(-16000);
    } finally {
      plain.close();
    }
  });

  it('opens an up-to-date database again without touching it', () => {
    const file = path.join(dir, 'a.db');
    openStore(file).close();
    const store = openStore(file);
    expect(store.db.pragma('user_version', { simple: true })).toBe(latestVersion());
    store.close();
    store.close();
  });

  it('upgrades a version 1 database; the key-ordered export then walks the pairing index instead of sorting the run', () => {
    const file = path.join(dir, 'v1.db');
    const raw = new Database(file);
    migrate(raw, MIGRATIONS.slice(0, 1));
    raw.close();
    const store = openStore(file);
    try {
      expect(store.db.pragma('user_version', { simple: true })).toBe(latestVersion());
      const plan = (store.db.prepare(`EXPLAIN QUERY PLAN ${questionExportSql({ order: 'key' })}`).all(1, null, null) as Array<{ detail: string }>).map((r) => r.detail);
      expect(plan.join('\n')).toContain('items_pairing');
      expect(plan.join('\n')).not.toMatch(/TEMP B-TREE FOR LAST [2-9] TERMS/);
    } finally {
      store.close();
    }
  });

  it('refuses a file that is not a SQLite database with a storage error naming it, for writing and for reading', () => {
    const file = path.join(dir, 'notes.db');
    fs.writeFileSync(file, 'these are not the pages you are looking for '.repeat(100));
    for (const readOnly of [false, true]) {
      const err = catchError(() => openStore(file, { readOnly }));
      expect(err).toBeInstanceOf(StorageError);
      expect((err as StorageError).exitCode).toBe(ExitCode.storage);
      expect((err as Error).message).toMatch(new RegExp(`^results database ${file}: not a SQLite database, or a corrupted one\\. Pass --db`));
    }
  });

  it('says so when the path cannot be opened as a database', () => {
    expect(() => openStore(dir)).toThrow(/cannot be opened: it is a folder, or its folder cannot be written/);
  });

  it('refuses a database written by a newer dsbench, and leaves it alone', () => {
    const file = path.join(dir, 'newer.db');
    const raw = new Database(file);
    raw.exec('CREATE TABLE future (x)');
    raw.pragma(`user_version = ${latestVersion() + 3}`);
    raw.close();
    for (const readOnly of [false, true]) {
      const err = catchError(() => openStore(file, { readOnly }));
      expect(err).toMatchObject({ exitCode: ExitCode.storage });
      expect((err as Error).message).toContain(`${file}: written by a newer dsbench (schema version ${latestVersion() + 3}, this dsbench knows up to ${latestVersion()}). Upgrade dsbench`);
    }
    const after = new Database(file);
    expect(after.pragma('user_version', { simple: true })).toBe(latestVersion() + 3);
    after.close();
  });

  it('refuses a SQLite database of some other program rather than writing its tables into it', () => {
    const file = path.join(dir, 'other.db');
    const raw = new Database(file);
    raw.exec('CREATE TABLE contacts (name)');
    raw.close();
    expect(() => openStore(file)).toThrow(/not a dsbench one/);
  });
});

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}
