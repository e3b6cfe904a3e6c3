// Storage faults as a user meets them on the command line: exit 6, the database path, what went wrong and
// what to do, no stack trace; reports open the database read-only so they work where nothing can be written.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/http/exit-codes.js';
import { latestVersion } from '../../src/store/migrations.js';
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
