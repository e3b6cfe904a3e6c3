// A database that fills up during a run: the run stops launching, cancels what it started on the server,
// ends with a storage error (exit 6) naming the database, and is resumable without asking anything twice.
// The disk is "full" for real: SQLite's max_page_count caps the run's own connection (SQLITE_FULL).
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { DsbenchError } from '../../src/http/errors.js';
import { ExitCode } from '../../src/http/exit-codes.js';
import { executeRun } from '../../src/runner/run.js';
import { openStore } from '../../src/store/index.js';
import { CapturingReporter, cleanup, emulator, inlineSearch, op, runDefaults, runSuite, suite, target, tempDir } from './fixtures/harness.js';

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
    const e = await emulator({ timeScale: 0.01, medianMs: 30_000, sigma: 0.2, search: inlineSearch });
    const loaded = await suite(SUITE);
    const dbPath = path.join(tempDir(), 'full.db');
    const store = openStore(dbPath);
    let error: unknown;
    try {
      await executeRun({ ...runDefaults(), maxQuotaWaitMs: 1000, suite: loaded, targets: [target({ name: 'main', emulator: e })], recorder: store.recorder, reporter: new FillAfterFirst(store.db) });
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
    expect(e.questionRecords().some((q) => q.outcome === 'cancelled')).toBe(true);

    const reader = new Database(dbPath, { readonly: true });
    expect(['aborted', 'running']).toContain((reader.prepare('SELECT status FROM runs WHERE id = 1').get() as { status: string }).status);
    reader.close();

    // With room again (a new connection has no cap), the run resumes: the rest are asked, nothing twice.
    const again = await runSuite(loaded, [target({ name: 'main', emulator: e })], { dbPath, resumeRunId: 1 });
    try {
      expect(again.result.targets.main?.counts.pending ?? 0).toBe(0);
      expect(e.counters()[op('versioned', 'create')]).toBe(8);
      expect(new Set(e.questionRecords().map((q) => q.text)).size).toBe(8);
    } finally {
      again.close();
    }
  });
});
