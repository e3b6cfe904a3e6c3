import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, latestVersion, migrate, schemaVersion } from '../../src/store/migrations.js';
import { ConfirmRecord, confirmationsOf, confirmationTotals, plannedRepeats, saveConfirmation } from '../../src/store/confirmations.js';
import { findRun, listRuns } from '../../src/store/queries.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function database(): Database.Database {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsbench-confirmations-'));
  dirs.push(dir);
  return new Database(path.join(dir, 'r.db'));
}

const run = (db: Database.Database, label: string | null, confirmOf: number | null): number =>
  Number(
    db
      .prepare(`INSERT INTO runs (label, suite_name, suite_path, suite_hash, dsbench_version, options_json, started_at, status, confirm_of) VALUES (?, 's', 's.yaml', 'h', '0', '{}', '2026-01-01T00:00:00Z', 'completed', ?)`)
      .run(label, confirmOf).lastInsertRowid,
  );

describe('confirmations (schema version 15)', () => {
  it('upgrades a version 12 database: runs gain confirm_of and confirm_json, rows kept', () => {
    const db = database();
    migrate(db, MIGRATIONS.filter((m) => m.version <= 12));
    db.prepare(`INSERT INTO runs (label, suite_name, suite_path, suite_hash, dsbench_version, options_json, started_at, status) VALUES ('nightly', 's', 's.yaml', 'h', '0', '{}', '2026-01-01T00:00:00Z', 'completed')`).run();
    migrate(db);
    expect(schemaVersion(db)).toBe(latestVersion());
    expect(db.prepare('SELECT confirm_of, confirm_json FROM runs').get()).toEqual({ confirm_of: null, confirm_json: null });
  });

  it("a confirmation is its run's own: never a label's latest, written only on its own row", () => {
    const db = database();
    migrate(db);
    const night = run(db, 'nightly', null);
    const confirmation = run(db, 'nightly', night);
    expect(findRun(db, 'nightly')?.id).toBe(night);
    expect(findRun(db, 'latest')?.id).toBe(night);
    expect(findRun(db, confirmation)?.confirmOf).toBe(night);
    expect(listRuns(db).find((r) => r.id === confirmation)?.confirmOf).toBe(night);
    const record = { baseline: { db: '/x.db', runId: 1 }, questions: ['t\u0000question\u0000q1'], repeats: 2, budget: 6 };
    saveConfirmation(db, confirmation, record);
    expect(confirmationsOf(db, night)).toEqual([{ runId: confirmation, status: 'completed', record }]);
    expect(() => saveConfirmation(db, night, record)).toThrow(/not a confirmation/);
    expect(confirmationTotals(db, night)).toEqual({ runs: [confirmation], items: 0, credits: null });
  });
});

describe('a confirmation\'s record', () => {
  const baseline = { db: '/x.db', runId: 1 };
  const questions = ['t\u0000question\u0000q1', 't\u0000question\u0000q2', 't\u0000question\u0000q3'];

  it('keeps each question\'s repeats; one written with repeats alone gives every question that many', () => {
    const db = database();
    migrate(db);
    const confirmation = run(db, null, run(db, 'nightly', null));
    const record = { baseline, questions, repeats: 7, questionRepeats: [7, 7, 6], budget: 20 };
    saveConfirmation(db, confirmation, record);
    expect(plannedRepeats(confirmationsOf(db, 1)[0]!.record!)).toEqual([7, 7, 6]);
    // As an earlier dsbench wrote it: the same JSON, no questionRepeats.
    db.prepare('UPDATE runs SET confirm_json = ? WHERE id = ?').run(JSON.stringify({ baseline, questions, repeats: 6, budget: 20 }), confirmation);
    const old = confirmationsOf(db, 1)[0]!.record!;
    expect(old.questionRepeats).toBeUndefined();
    expect(plannedRepeats(old)).toEqual([6, 6, 6]);
  });

  it('refuses repeats that do not match the questions', () => {
    expect(() => ConfirmRecord.parse({ baseline, questions, repeats: 7, questionRepeats: [7, 6], budget: 20 })).toThrow(/questionRepeats/);
    expect(() => ConfirmRecord.parse({ baseline, questions, repeats: 6, questionRepeats: [7, 7, 6], budget: 20 })).toThrow(/questionRepeats/);
  });
});
