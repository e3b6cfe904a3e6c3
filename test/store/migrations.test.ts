import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, type Migration, migrate, schemaVersion } from '../../src/store/migrations.js';
import { openStore } from '../../src/store/store.js';

// A fake history: version 1 kept durations in seconds inside one text column; version 2 splits it
// into a real column in milliseconds (a table rebuild, with a foreign key pointing at the table).
const V1: Migration = {
  version: 1,
  name: 'old schema',
  up: `CREATE TABLE runs (id INTEGER PRIMARY KEY, label TEXT);
       CREATE TABLE turns (run_id INTEGER NOT NULL REFERENCES runs (id), turn INTEGER, duration TEXT);`,
};
const V2: Migration = {
  version: 2,
  name: 'durations in ms',
  up: `CREATE TABLE turns_new (run_id INTEGER NOT NULL REFERENCES runs (id), turn INTEGER, wall_ms REAL);
       INSERT INTO turns_new SELECT run_id, turn, CAST(duration AS REAL) * 1000 FROM turns;
       DROP TABLE turns;
       ALTER TABLE turns_new RENAME TO turns;`,
};
const V3_CODE: Migration = {
  version: 3,
  name: 'labels in code',
  up: (db) => {
    const rows = db.prepare('SELECT id, label FROM runs').all() as Array<{ id: number; label: string }>;
    const update = db.prepare('UPDATE runs SET label = ? WHERE id = ?');
    for (const r of rows) update.run(r.label.toUpperCase(), r.id);
  },
};

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsbench-migrate-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function writeOldDatabase(file: string): void {
  const old = openStore(file, { migrations: [V1] });
  old.db.exec(`INSERT INTO runs VALUES (1, 'nightly'), (2, 'adhoc');
               INSERT INTO turns VALUES (1, 0, '1.5'), (1, 1, '0.25'), (2, 0, '3')`);
  old.close();
}

describe('migrations', () => {
  it('upgrades a version 1 database with rows in it to the latest version on open, keeping the rows', () => {
    const file = path.join(dir, 'old.db');
    writeOldDatabase(file);
    const store = openStore(file, { migrations: [V1, V2, V3_CODE] });
    try {
      expect(schemaVersion(store.db)).toBe(3);
      expect(store.db.prepare('SELECT run_id, turn, wall_ms FROM turns ORDER BY run_id, turn').all()).toEqual([
        { run_id: 1, turn: 0, wall_ms: 1500 },
        { run_id: 1, turn: 1, wall_ms: 250 },
        { run_id: 2, turn: 0, wall_ms: 3000 },
      ]);
      expect(store.db.prepare('SELECT label FROM runs ORDER BY id').pluck().all()).toEqual(['NIGHTLY', 'ADHOC']);
      expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      store.close();
    }
  });

  it('rolls a failing step back whole: the database stays at the previous version, usable', () => {
    const file = path.join(dir, 'old.db');
    writeOldDatabase(file);
    const broken: Migration = { version: 2, name: 'broken', up: 'ALTER TABLE runs ADD COLUMN x TEXT; SELECT * FROM no_such_table;' };
    expect(() => openStore(file, { migrations: [V1, broken] })).toThrow(/no_such_table/);
    const db = new Database(file);
    expect(schemaVersion(db)).toBe(1);
    expect(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('runs')).toEqual(['id', 'label']);
    db.close();
  });

  it('refuses a step that leaves foreign keys dangling', () => {
    const file = path.join(dir, 'old.db');
    writeOldDatabase(file);
    const dangling: Migration = { version: 2, name: 'dangling', up: 'DELETE FROM runs WHERE id = 2' };
    expect(() => openStore(file, { migrations: [V1, dangling] })).toThrow(/foreign key violations/);
    const db = new Database(file);
    expect(schemaVersion(db)).toBe(1);
    expect(db.prepare('SELECT count(*) FROM runs').pluck().get()).toBe(2);
    db.close();
  });

  it('rejects a list out of order', () => {
    const db = new Database(':memory:');
    expect(() => migrate(db, [V2, V1])).toThrow(/out of order/);
    db.close();
  });

  it('version 11 gives recorded citations a kind (a path: file; none: repository) and no revision', () => {
    const file = path.join(dir, 'v10.db');
    const old = openStore(file, { migrations: MIGRATIONS.slice(0, 10) });
    old.db.exec(`INSERT INTO runs (id, suite_name, suite_path, suite_hash, dsbench_version, options_json, started_at, status) VALUES (1, 's', 's.yaml', 'h', '0', '{}', 't', 'completed');
      INSERT INTO targets (run_id, name, url, api, emulated) VALUES (1, 't', 'http://x', 'legacy', 0);
      INSERT INTO items (run_id, key, position, kind, target, suite_item_id, repeat, tags_json, status) VALUES (1, 'k', 0, 'question', 't', 'q', 0, '[]', 'completed');
      INSERT INTO turns (run_id, item_key, turn, text, state, polls) VALUES (1, 'k', 0, 'q', 'completed', 1);
      INSERT INTO citations (run_id, item_key, turn, position, origin, repository, path, link, status, reason, checked_at) VALUES
        (1, 'k', 0, 0, 'answer', 'github.com/o/r', 'a.ts', '/github.com/o/r/-/blob/a.ts', 'valid', 'file exists', 't'),
        (1, 'k', 0, 1, 'source', 'github.com/o/r', NULL, '/github.com/o/r', 'valid', 'repository exists', 't');`);
    old.close();
    const store = openStore(file);
    try {
      expect(store.db.prepare('SELECT kind, revision FROM citations ORDER BY position').all()).toEqual([
        { kind: 'file', revision: null },
        { kind: 'repository', revision: null },
      ]);
    } finally {
      store.close();
    }
  });
});
