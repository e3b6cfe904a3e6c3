import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { MIGRATIONS, latestVersion, migrate, schemaVersion } from '../../src/store/migrations.js';
import { nightVerdict, passedRunsBefore, recordComparedVerdict } from '../../src/store/queries.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function database(): Database.Database {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsbench-night-verdicts-'));
  dirs.push(dir);
  return new Database(path.join(dir, 'r.db'));
}

/** A completed run of suite s on target t that asked one question; `extra` sets more of its columns. */
function night(db: Database.Database, extra: Record<string, number | string | null> = {}): number {
  const columns = { label: 'nightly', suite_name: 's', suite_path: 's.yaml', suite_hash: 'h', dsbench_version: '0', options_json: '{}', started_at: '2026-01-01T00:00:00Z', status: 'completed', ...extra };
  const names = Object.keys(columns);
  const id = Number(db.prepare(`INSERT INTO runs (${names.join(', ')}) VALUES (${names.map((n) => `@${n}`).join(', ')})`).run(columns).lastInsertRowid);
  db.prepare(`INSERT INTO targets (run_id, name, url, api, emulated) VALUES (?, 't', 'http://x', 'legacy', 0)`).run(id);
  db.prepare(`INSERT INTO items (run_id, key, target, kind, suite_item_id, repeat, position, status, outcome, tags_json) VALUES (?, 'k', 't', 'question', 'q', 0, 0, 'done', 'completed', '[]')`).run(id);
  return id;
}

describe('night verdicts (schema version 18)', () => {
  it('upgrades a version 17 database: runs gain compared_exit, null, and keep their own verdict', () => {
    const db = database();
    migrate(db, MIGRATIONS.filter((m) => m.version <= 17));
    const id = night(db);
    migrate(db);
    expect(schemaVersion(db)).toBe(latestVersion());
    expect(nightVerdict(db, id)).toEqual({ exitCode: ExitCode.ok, compared: false });
  });

  it("is the comparison's once recorded, the newest decision standing", () => {
    const db = database();
    migrate(db);
    const id = night(db);
    recordComparedVerdict(db, id, ExitCode.suspect);
    expect(nightVerdict(db, id)).toEqual({ exitCode: ExitCode.suspect, compared: true });
    recordComparedVerdict(db, id, ExitCode.ok);
    expect(nightVerdict(db, id)).toEqual({ exitCode: ExitCode.ok, compared: true });
    expect(() => nightVerdict(db, id + 1)).toThrow(`no run ${id + 1}`);
  });

  it('pools only whole nights of the suite that passed: no rerun, confirmation, shard, partial merge or regressed night', () => {
    const db = database();
    migrate(db);
    const good = night(db);
    const rerun = night(db, { rerun_of: good });
    const confirmation = night(db, { confirm_of: good });
    const shard = night(db, { shard_index: 1, shard_count: 2 });
    const partial = night(db, { partial: 1 });
    const regressed = night(db);
    recordComparedVerdict(db, regressed, ExitCode.expectationsFailed);
    const unchanged = night(db);
    recordComparedVerdict(db, unchanged, ExitCode.ok);
    const all = () => true;
    expect(passedRunsBefore(db, 's', undefined, 10, all).map((r) => r.id)).toEqual([unchanged, good]);
    expect([rerun, confirmation, shard, partial].every((id) => nightVerdict(db, id).exitCode === ExitCode.ok)).toBe(true);
    expect(passedRunsBefore(db, 's', unchanged, 10, all).map((r) => r.id)).toEqual([good]);
    expect(passedRunsBefore(db, 's', undefined, 10, (targets) => targets.includes('other'))).toEqual([]);
  });
});
