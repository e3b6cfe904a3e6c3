// A database that fills up during a run: the run stops launching, cancels what it started on the server,
// ends with a storage error (exit 6) naming the database, and is resumable without asking anything twice.
// The disk is "full" for real: SQLite's max_page_count caps the run's own connection (SQLITE_FULL).
import { spawn } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { DsbenchError } from '../../src/errors/errors.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { executeRun } from '../../src/runner/run.js';
import { findRun, openStore, requeuedAttemptRows } from '../../src/store/index.js';
import { ALICE } from '../helpers/emulator.js';
import { CapturingReporter, cleanup, emulator, op, runDefaults, runSuite, suite, target, tempDir } from './fixtures/harness.js';

afterEach(cleanup);

const SUITE = `
name: full-disk
defaults: { concurrency: 2, poll: { strategy: fixed, interval: 50ms, min: 20ms } }
questions:
${Array.from({ length: 8 }, (_, i) => `  - id: q${i}\n    question: Where is handler${i} implemented?\n`).join('')}`;

/** Fills the database to its cap once the first item has ended: every later write that needs a page fails. */
class FillAfterFirst extends CapturingReporter {
  constructor(private readonly db: Database.Database) {
    super();
  }
  override onItemEnd(key: string, summary: { outcome: string }): void {
    super.onItemEnd(key, summary);
    if (this.ended.length === 1) this.db.pragma(`max_page_count = ${this.db.pragma('page_count', { simple: true }) as number}`);
  }
}

describe('a database that fills up during a run', () => {
  it('stops launching, cancels running questions, exits 6 naming the database; the run resumes without asking twice', async () => {
    const e = await emulator({ timeScale: 0.01, medianMs: 30_000, sigma: 0.2 });
    const loaded = await suite(SUITE);
    const dbPath = path.join(tempDir(), 'full.db');
    const store = openStore(dbPath);
    let error: unknown;
    try {
      await executeRun({ ...runDefaults(), maxQuotaWaitMs: 1000, suite: loaded, targets: [target({ name: 'main', emulator: e })], recorder: store.recorder, observers: [new FillAfterFirst(store.db)] });
    } catch (caught) {
      error = caught;
    } finally {
      store.close();
    }
    expect(error).toBeInstanceOf(DsbenchError);
    const fault = error as DsbenchError;
    expect(fault.exitCode).toBe(ExitCode.storage);
    expect(fault.message).toContain(`results database ${dbPath}: the disk is full`);
    expect(fault.message).toMatch(/Run 1 stopped: nothing more was launched .* dsbench run --resume 1/);

    // Launched: the first item and the ones running beside it, not the whole suite; none left processing.
    const created = e.counters()[op('versioned', 'create')] ?? 0;
    expect(created).toBeLessThan(8);
    expect(e.questionRecords().filter((q) => q.outcome === 'processing')).toEqual([]);

    const reader = new Database(dbPath, { readonly: true });
    expect(['aborted', 'running']).toContain(findRun(reader, 1)!.status);
    reader.close();

    // With room again (a new connection has no cap), the run resumes: the rest are asked, nothing twice. The
    // questions dsbench cancelled (and recorded so) are asked again, their attempts kept: asked again after
    // our own cancel, never a question asked twice.
    const again = await runSuite(loaded, [target({ name: 'main', emulator: e })], { dbPath, resumeRunId: 1 });
    try {
      expect(again.result.targets.main?.counts.pending ?? 0).toBe(0);
      const requeued = requeuedAttemptRows(again.db, 1);
      expect(again.result.targets.main?.rerunAfterInterruption.attempts).toBe(requeued.length);
      // An attempt stopped before its create went out (the stop came between its commit and its send, as on
      // a loaded machine) has no conversation: it was never on the server, so running it again creates it once.
      const onServer = requeued.filter((r) => r.conversationRef !== null);
      // Each one it stopped on the server it cancelled there, once (a loaded machine may have stopped every
      // one before its send; one may have ended on the server before its cancel came).
      expect(requeued.length).toBeGreaterThan(0);
      expect(e.counters()[op('versioned', 'cancel')] ?? 0).toBe(onServer.length);
      expect(e.counters()[op('versioned', 'create')]).toBe(8 + onServer.length);
      expect(new Set(e.questionRecords().map((q) => q.text)).size).toBe(8);
      const cancelled = e.questionRecords().filter((q) => q.outcome === 'cancelled').map((q) => q.text);
      // Each re-asked text was one dsbench cancelled; one it cancelled without recording it (the disk full) is not asked again.
      for (const r of onServer) expect(cancelled).toContain(r.texts[0]);
    } finally {
      again.close();
    }
  });
});

describe('a commit that fails (the disk fills as the write-ahead log grows)', () => {
  it('stops the run at once, cancels what runs on the server although nothing more can be recorded, exits 6 naming the database', async () => {
    // Answers of 0.1 to several seconds: when the first one ends, others are still running.
    const e = await emulator({ timeScale: 0.02, medianMs: 40_000, sigma: 1 });
    const dir = tempDir();
    const dbPath = path.join(dir, 'runs.db');
    const suitePath = path.join(dir, 'suite.yaml');
    (await import('node:fs')).writeFileSync(suitePath, SUITE.replace('concurrency: 2', 'concurrency: 4'));
    // dsbench may write files of at most 4 MB (RLIMIT_FSIZE; SIGXFSZ ignored, so a write past it fails with
    // EFBIG, as on a full disk). Its write-ahead log is far smaller, until another connection grows it below.
    const main = path.join(inject('builtCli').dir, 'dist/cli/main.js');
    const child = spawn('sh', ['-c', `trap '' XFSZ; exec prlimit --fsize=${4 * 1024 * 1024} "$@"`, 'sh', process.execPath, main, 'run', suitePath, '--db', dbPath], {
      // DSBENCH_DEBUG: a failure here shows where dsbench stopped.
      env: { DSBENCH_DEBUG: '1', PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', SRC_ENDPOINT: e.url, SRC_ACCESS_TOKEN: ALICE },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await expect.poll(() => e.counters()[op('versioned', 'create')] ?? 0, { timeout: 20_000 }).toBe(4);
    // 8 MB more in the log (no checkpoint: the log keeps growing): dsbench's next commit writes past its 4 MB.
    const filler = new Database(dbPath);
    filler.pragma('busy_timeout = 5000');
    filler.pragma('wal_autocheckpoint = 0');
    filler.exec('CREATE TABLE filler (b BLOB)');
    filler.prepare('INSERT INTO filler VALUES (?)').run(Buffer.alloc(8 * 1024 * 1024));
    filler.close();

    expect(await exited, stderr).toBe(ExitCode.storage);
    expect(stderr).toContain(`results database ${dbPath}: a disk error (SQLITE_IOERR`);
    expect(e.counters()[op('versioned', 'create')]).toBeLessThan(8);
    // What ran on the server was cancelled: the cancels went out although they could not wait for a commit.
    expect(e.questionRecords().filter((q) => q.outcome === 'processing'), stderr).toEqual([]);
    expect(e.questionRecords().some((q) => q.outcome === 'cancelled'), stderr).toBe(true);
  });
});
