// Storage faults as a user meets them on the command line: exit 6, the database path, what went wrong and
// what to do, no stack trace; reports open the database read-only so they work where nothing can be written.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { latestVersion, MIGRATIONS } from '../../src/store/migrations.js';
import { openStore } from '../../src/store/store.js';
import { prepareCli, type Cli } from '../helpers/cli.js';
import { completed, question, recordRun } from '../report/fixtures.js';

let cli: Cli;
let dir: string;
beforeAll(async () => {
  cli = prepareCli();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsbench-storage-'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Makes a folder unwritable for this process, for real: root ignores permission bits, so as root the folder
 * is made immutable (chattr +i); otherwise its mode is 0555. Undefined when neither holds here.
 */
function lockFolder(folder: string): (() => void) | undefined {
  try {
    if (process.getuid?.() === 0) {
      execFileSync('chattr', ['+i', folder], { stdio: 'ignore' });
      return () => execFileSync('chattr', ['-i', folder], { stdio: 'ignore' });
    }
    fs.chmodSync(folder, 0o555);
    return () => fs.chmodSync(folder, 0o755);
  } catch {
    return undefined;
  }
}

function canWriteIn(folder: string): boolean {
  try {
    fs.writeFileSync(path.join(folder, 'probe'), 'x');
    fs.rmSync(path.join(folder, 'probe'));
    return true;
  } catch {
    return false;
  }
}

const noStack = (stderr: string) => expect(stderr).not.toMatch(/\n\s+at /);

describe('storage faults on the command line', () => {
  it('a file that is not a database: run and runs exit 6 naming it, no stack trace', async () => {
    const file = path.join(dir, 'notes.db');
    fs.writeFileSync(file, 'not a database '.repeat(500));
    for (const args of [['runs', '--db', file], ['run', 'suites/smoke.yaml', '--db', file, '--quiet']]) {
      const run = await cli.run(args);
      expect(run.code, run.stderr).toBe(ExitCode.storage);
      expect(run.stderr).toContain(`results database ${file}: not a SQLite database, or a corrupted one. Pass --db with another path`);
      noStack(run.stderr);
    }
  });

  it('a database of a newer dsbench: exit 6 saying to upgrade', async () => {
    const file = path.join(dir, 'newer.db');
    const raw = new Database(file);
    raw.exec('CREATE TABLE runs (id INTEGER PRIMARY KEY)');
    raw.pragma(`user_version = ${latestVersion() + 1}`);
    raw.close();
    const run = await cli.run(['report', '--db', file]);
    expect(run.code).toBe(ExitCode.storage);
    expect(run.stderr).toContain(`${file}: written by a newer dsbench (schema version ${latestVersion() + 1}`);
    expect(run.stderr).toContain('Upgrade dsbench');
  });

  it('a --db whose folder cannot be created (a file is in the way): exit 6, nothing else written', async () => {
    const blocker = path.join(dir, 'blocker');
    fs.writeFileSync(blocker, 'a file, not a folder');
    const file = path.join(blocker, 'results', 'dsbench.db');
    const run = await cli.run(['run', 'suites/smoke.yaml', '--db', file, '--quiet']);
    expect(run.code, run.stderr).toBe(ExitCode.storage);
    expect(run.stderr).toContain(`results database ${file}: cannot create or write`);
    expect(run.stderr).toContain('Pass --db with a path in a folder dsbench can write');
    noStack(run.stderr);
  });

  it('a locked database: exit 6 saying what holds it', async () => {
    const file = path.join(dir, 'locked.db');
    openStore(file).close();
    const holder = new Database(file);
    holder.pragma('locking_mode = EXCLUSIVE');
    holder.exec('BEGIN EXCLUSIVE');
    try {
      const run = await cli.run(['runs', '--db', file]);
      expect(run.code, run.stderr).toBe(ExitCode.storage);
      expect(run.stderr).toContain(`results database ${file}: locked by another program`);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });

  it('a read-only folder: runs, report and compare still work; run exits 6 saying it is read-only', async () => {
    const folder = path.join(dir, 'readonly');
    fs.mkdirSync(folder);
    const file = path.join(folder, 'results.db');
    const store = openStore(file);
    recordRun(store, [{ item: question('q1'), turns: [completed()] }], { info: { label: 'one' } });
    store.close();
    const unlock = lockFolder(folder);
    if (!unlock || canWriteIn(folder)) {
      unlock?.();
      console.warn('storage-faults: cannot make a folder read-only here; the read-only case is not exercised');
      return;
    }
    try {
      const runs = await cli.run(['runs', '--db', file]);
      expect(runs.code, runs.stderr).toBe(ExitCode.ok);
      expect(runs.stdout).toContain('one');
      const report = await cli.run(['report', 'latest', '--db', file, '--out', path.join(dir, 'report'), '--format', 'json']);
      expect(report.code, report.stderr).toBe(ExitCode.ok);
      const compare = await cli.run(['compare', 'latest', 'latest', '--db', file, '--out', path.join(dir, 'cmp')]);
      // The same run twice is refused as usage: it got that far only by reading the database.
      expect(compare.stderr).toContain('baseline and candidate are the same run');
      const run = await cli.run(['run', 'suites/smoke.yaml', '--db', file, '--quiet']);
      expect(run.code, run.stderr).toBe(ExitCode.storage);
      expect(run.stderr).toMatch(new RegExp(`results database ${file}: (the database is read-only|cannot be opened)`));
      noStack(run.stderr);
    } finally {
      unlock();
    }
  });
});

/** A database at schema version `version` (older than this dsbench's) with `runs` runs of about 3 KB each. */
function olderDatabase(file: string, version: number, runs = 10): void {
  const store = openStore(file, { migrations: MIGRATIONS.slice(0, version) });
  try {
    const insert = store.db.prepare(
      `INSERT INTO runs (label, suite_name, suite_path, suite_hash, dsbench_version, options_json, started_at, status)
       VALUES ('older', 's', 's.yaml', 'h', '0.1.0', ?, '2025-01-01T00:00:00Z', 'completed')`,
    );
    for (let i = 0; i < runs; i++) insert.run(JSON.stringify({ filler: 'x'.repeat(3000) }));
    store.db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    store.close();
  }
}

const OLDER = latestVersion() - 3;
const upgrading = `while upgrading the database to schema version ${OLDER + 1} (`;

describe('storage faults while the database is opened, created or upgraded', () => {
  it('a corrupted page met by a query after opening: exit 6 naming the database, not an internal error', async () => {
    const file = path.join(dir, 'corrupt-pages.db');
    olderDatabase(file, latestVersion(), 40);
    const bytes = fs.readFileSync(file);
    const pages = bytes.length / 4096;
    // The last pages hold the runs table's rows: garbage over them, the header and schema intact.
    bytes.fill(0x5a, (pages - 10) * 4096);
    fs.writeFileSync(file, bytes);
    const run = await cli.run(['runs', '--db', file]);
    expect(run.code, run.stderr).toBe(ExitCode.storage);
    expect(run.stderr).toContain(`results database ${file}: not a SQLite database, or a corrupted one. Pass --db with another path`);
    expect(run.stderr).not.toContain('internal error');
    noStack(run.stderr);
  });
});

/**
 * A small tmpfs of its own, mounted for the test (needs root, as CI runs); the reason it cannot be had
 * otherwise, for the skip.
 */
function mountTmpfs(folder: string, size: string): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root to mount a tmpfs';
  try {
    fs.mkdirSync(folder, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', folder], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `cannot mount a tmpfs here (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
  }
}

/** Fills the tmpfs at `folder` until `leaveKiB` are left. */
function fillUntil(folder: string, leaveKiB: number): void {
  const free = Number(execFileSync('df', ['--output=avail', '-k', folder], { encoding: 'utf8' }).trim().split('\n').pop());
  fs.writeFileSync(path.join(folder, 'filler'), Buffer.alloc(Math.max(0, free - leaveKiB) * 1024));
}

describe('storage faults on a real full or read-only file system', () => {
  const mount = path.join(os.tmpdir(), `dsbench-tmpfs-${process.pid}`);
  let unavailable: string | undefined;
  beforeAll(() => {
    unavailable = mountTmpfs(mount, '8m');
    if (unavailable) console.warn(`storage-faults: full and read-only file systems not exercised: ${unavailable}`);
  });
  afterAll(() => {
    if (unavailable) return;
    // Lazily if something still holds it: the mount must not outlive the test.
    execFileSync('umount', ['-l', mount]);
    fs.rmSync(mount, { recursive: true, force: true });
  });
  const clear = () => {
    for (const name of fs.readdirSync(mount)) fs.rmSync(path.join(mount, name), { force: true });
  };

  it('a disk that fills while a new database is created: exit 6, the disk is full, not an internal error', async (ctx) => {
    if (unavailable) return ctx.skip(unavailable);
    clear();
    // Room for the shared-memory file and a few pages: the schema does not fit.
    fillUntil(mount, 96);
    const file = path.join(mount, 'fresh.db');
    const run = await cli.run(['run', 'suites/smoke.yaml', '--db', file, '--quiet']);
    expect(run.code, run.stderr).toBe(ExitCode.storage);
    expect(run.stderr).toMatch(new RegExp(`results database ${file}: (the disk is full|a disk error)`));
    expect(run.stderr).toContain(`disk of ${mount}`);
    expect(run.stderr).not.toContain('internal error');
    noStack(run.stderr);
  });

  it('a disk that fills while an older database is upgraded: exit 6 for run and runs, the step named and undone', async (ctx) => {
    if (unavailable) return ctx.skip(unavailable);
    clear();
    const file = path.join(mount, 'older.db');
    olderDatabase(file, OLDER);
    // The shared-memory file (32 KiB) and two pages: less than one step's write-ahead log.
    fillUntil(mount, 40);
    for (const args of [['run', 'suites/smoke.yaml', '--quiet'], ['runs']]) {
      const run = await cli.run([...args, '--db', file]);
      expect(run.code, run.stderr).toBe(ExitCode.storage);
      expect(run.stderr).toContain(`results database ${file}: `);
      expect(run.stderr).toContain(`the disk is full (or the database reached its size limit), ${upgrading}`);
      expect(run.stderr).toContain(`; that step was undone. Free space on the disk of ${mount}`);
      noStack(run.stderr);
    }
    const after = new Database(file, { readonly: true });
    expect(after.pragma('user_version', { simple: true })).toBe(OLDER);
    after.close();
  });

  it('an older database in a read-only file: exit 6 saying it is read-only, while upgrading', async (ctx) => {
    if (unavailable) return ctx.skip(unavailable);
    clear();
    const file = path.join(mount, 'immutable.db');
    olderDatabase(file, OLDER);
    execFileSync('chattr', ['+i', file]);
    try {
      const run = await cli.run(['run', 'suites/smoke.yaml', '--db', file, '--quiet']);
      expect(run.code, run.stderr).toBe(ExitCode.storage);
      expect(run.stderr).toContain(`results database ${file}: the database is read-only (the file, its folder or the file system cannot be written), ${upgrading}`);
      expect(run.stderr).toContain(`Make ${file} and ${mount} writable`);
      noStack(run.stderr);
    } finally {
      execFileSync('chattr', ['-i', file]);
    }
  });

  it('an older database on a read-only file system: runs reads an upgraded private copy; run exits 6', async (ctx) => {
    if (unavailable) return ctx.skip(unavailable);
    clear();
    const file = path.join(mount, 'older-ro.db');
    olderDatabase(file, OLDER, 3);
    execFileSync('mount', ['-o', 'remount,ro', mount]);
    try {
      const runs = await cli.run(['runs', '--db', file]);
      expect(runs.code, runs.stderr).toBe(ExitCode.ok);
      expect(runs.stdout.match(/older/g)).toHaveLength(3);
      const run = await cli.run(['run', 'suites/smoke.yaml', '--db', file, '--quiet']);
      expect(run.code, run.stderr).toBe(ExitCode.storage);
      expect(run.stderr).toContain(`results database ${file}: `);
      noStack(run.stderr);
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', mount]);
    }
  });
});
