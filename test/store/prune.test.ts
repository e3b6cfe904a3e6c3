// How big a year of nightly runs grows, and `dsbench runs prune` on such a database: what it keeps (the newest
// runs of each suite, kept labels, blessed baselines), that it compacts the file, and that it asks before
// removing every run. One night is recorded through the recorder as a run records it; the other nights are
// copies of its rows under new run ids (SQL, as the schema's test: nights through the recorder would take
// minutes). A month is generated and a year extrapolated from it (all 365 nights generated once: 386 MB).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/random.js';
import { databaseBytes } from '../../src/store/prune.js';
import { openStore } from '../../src/store/store.js';
import { dsbenchHere } from '../helpers/cli-here.js';
import { setLease } from '../runner/fixtures/harness.js';
import { TARGETS, completedTurn, questionItems, runInfo } from './fixtures/sample.js';

const QUESTIONS = 100;
/** Nights generated: a month; each night adds the same rows, so a year is 365/30 of it (less the schema's pages). */
const NIGHTS = 30;
/** An answer's length: real answers run from under 1 KB to 25 KB (docs/ci.md); 6 KB is above most. */
const ANSWER_CHARS = 6000;
/** The bound docs/ci.md states for a year of such nights. */
const YEAR_LIMIT_BYTES = 400 * 1024 * 1024;
const MB = 1024 * 1024;

let dir: string;
let dbPath: string;

/** Words of varied length from a seeded generator, `chars` long. */
function prose(random: () => number, chars: number): string {
  const words: string[] = [];
  let length = 0;
  while (length < chars) {
    const word = Math.floor(random() * 36 ** 6).toString(36).slice(0, 2 + Math.floor(random() * 8));
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ').slice(0, chars);
}

/** One night as a run records it: 100 questions answered with 10 sources each, their checks, the run ended. */
function recordNight(file: string): void {
  const store = openStore(file);
  const random = mulberry32(7);
  const recorder = store.recorder;
  const items = questionItems(QUESTIONS);
  const runId = recorder.createRun(runInfo({ startedAt: '2026-01-01T03:00:00.000Z' }), [TARGETS[0]!], items);
  items.forEach((item, i) => {
    recorder.itemStarted(runId, item.key, '2026-01-01T03:00:01.000Z');
    recorder.conversationCreated(runId, item.key, `conversation-${i}`, '2026-01-01T03:00:01.000Z');
    const sources = Array.from({ length: 10 }, (_, s) => ({ type: 'file', link: `/github.com/acme/repo${s}/-/blob/src/module${i}/file${s}.ts?L10-40`, label: `src/module${i}/file${s}.ts` }));
    recorder.recordTurn(runId, item.key, 0, { ...completedTurn(i), text: prose(random, 120), answer: prose(random, ANSWER_CHARS), sources });
    recorder.recordExpectations(runId, item.key, [
      { name: 'state', passed: true, reason: 'completed' },
      { name: 'contains', passed: true, reason: `the answer contains "module${i}"`, turn: 0 },
      { name: 'sourcesInclude', passed: true, reason: 'cites github.com/acme/repo0', turn: 0 },
    ]);
    recorder.itemFinished(runId, item.key, 'completed', '2026-01-01T03:02:00.000Z');
  });
  recorder.setRunStatus(runId, 'completed', '2026-01-01T03:05:00.000Z');
  store.close();
}

/** Copies run 1 and every row that refers to it as run `to`, dated `day` days later. */
function copyNight(db: Database.Database, to: number, day: number): void {
  const runColumns = (db.pragma('table_info(runs)') as Array<{ name: string }>).map((c) => c.name);
  const started = `strftime('%Y-%m-%dT%H:%M:%fZ', started_at, '+${day} days')`;
  db.prepare(`INSERT INTO runs (${runColumns.join(', ')}) SELECT ${runColumns.map((c) => (c === 'id' ? String(to) : c === 'started_at' ? started : c)).join(', ')} FROM runs WHERE id = 1`).run();
  const tables = db.prepare(`SELECT m.name FROM sqlite_schema m WHERE m.type = 'table' AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'run_id')`).pluck().all() as string[];
  for (const table of tables) {
    const columns = (db.pragma(`table_info(${table})`) as Array<{ name: string; pk: number }>).filter((c) => !(c.pk === 1 && c.name === 'id')).map((c) => c.name);
    db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) SELECT ${columns.map((c) => (c === 'run_id' ? String(to) : c)).join(', ')} FROM ${table} WHERE run_id = 1`).run();
  }
}

/** A database of `nights` nights of suite `smoke`, labelled nightly, with a release run and a blessed one. */
function yearDatabase(file: string, nights: number): void {
  recordNight(file);
  const store = openStore(file);
  store.db.transaction(() => {
    for (let night = 2; night <= nights; night++) copyNight(store.db, night, night - 1);
    store.db.prepare("UPDATE runs SET label = 'release-1.0' WHERE id = 10").run();
    // A run blessed as a baseline (as `dsbench baseline bless 20 --name smoke-good` records it).
    store.db.prepare("INSERT INTO baselines (name, run_id, blessed_at) VALUES ('smoke-good', 20, '2026-01-01T00:00:00Z')").run();
  })();
  store.close();
}

function runIds(file: string): number[] {
  const store = openStore(file);
  try {
    return store.db.prepare('SELECT id FROM runs ORDER BY id').pluck().all() as number[];
  } finally {
    store.close();
  }
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsbench-prune-'));
  dbPath = path.join(dir, 'year.db');
  yearDatabase(dbPath, NIGHTS);
}, 60_000);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('a year of 100-question nights', () => {
  it(`stays under ${YEAR_LIMIT_BYTES / MB} MB`, () => {
    expect(runIds(dbPath)).toHaveLength(NIGHTS);
    const year = (databaseBytes(dbPath) * 365) / NIGHTS;
    expect(year).toBeLessThan(YEAR_LIMIT_BYTES);
    // Not an empty shell: at least the answers' own bytes.
    expect(year).toBeGreaterThan(365 * QUESTIONS * ANSWER_CHARS);
  });
});

describe('dsbench runs prune', () => {
  it('asks for --yes when it would keep nothing, and changes nothing', async () => {
    const refused = await dsbenchHere(['runs', 'prune', '--keep-last', '0', '--db', dbPath]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`--keep-last 0 with no --keep-label or --keep-blessed removes every run in ${dbPath}; add --yes to do it`);
    expect(runIds(dbPath)).toHaveLength(NIGHTS);
  });

  it('with --dry-run says what it would remove and removes nothing', async () => {
    const dry = await dsbenchHere(['runs', 'prune', '--keep-last', '5', '--db', dbPath, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('Would remove 25 runs and keep 5;');
    expect(runIds(dbPath)).toHaveLength(NIGHTS);
  });

  it('keeps the newest runs of each suite, kept labels, blessed runs and runs in progress, removes the rest and compacts the file', async () => {
    // Run 3 is being resumed by another live process (this one): it is not removed, and the exit code says so.
    setLease(dbPath, 3, { pid: process.pid, host: os.hostname(), heartbeatAgoMs: 0 });
    const before = databaseBytes(dbPath);
    const pruned = await dsbenchHere(['runs', 'prune', '--keep-last', '5', '--keep-label', 'release-1.0', '--keep-blessed', '--db', dbPath]);
    expect(pruned.code, pruned.stderr).toBe(7);
    expect(pruned.stdout).toContain(`Kept run 3 (nightly) of smoke, started 2026-01-03T03:00:00.000Z: run 3 is being run by another dsbench (pid ${process.pid} on host ${os.hostname()}`);
    expect(pruned.stdout).toMatch(/^Removed run 25 \(nightly\) of smoke, started 2026-01-25T03:00:00\.000Z: 100 items\.$/m);
    expect(pruned.stdout).toMatch(new RegExp(`Removed 22 runs, kept 8; ${dbPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: \\d+(\\.\\d)? MB before, \\d+(\\.\\d)? MB after\\.`));
    expect(runIds(dbPath)).toEqual([3, 10, 20, 26, 27, 28, 29, 30]);
    // 8 nights of 30 left: the file shrank with them (VACUUM), not only its free pages.
    expect(databaseBytes(dbPath)).toBeLessThan(before * (9 / NIGHTS));
  }, 60_000);

  it('states the database size in the report', async () => {
    const report = await dsbenchHere(['report', '30', '--db', dbPath, '--out', path.join(dir, 'report')]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(new RegExp(`Database ${dbPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: \\d+(\\.\\d)? MB; \`dsbench runs prune --keep-last N\` removes older runs`));
  }, 30_000);
});
