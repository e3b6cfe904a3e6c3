import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { iterateTurns, listRuns } from '../../src/store/queries.js';
import { openStore } from '../../src/store/store.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WRITER = fileURLToPath(new URL('./fixtures/writer.ts', import.meta.url));

let dir: string;
let child: ChildProcess | undefined;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsbench-crash-'));
});
afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Starts the writer (runs of `items` items, until killed) on `file`; `onDone` sees each item it
 * reports, always after that item's last commit. Resolves with the signal that ended it.
 */
function startWriter(file: string, items: number, onDone: (runId: number, key: string) => void): Promise<NodeJS.Signals | null> {
  const proc = spawn(process.execPath, ['--import', 'tsx', WRITER, file, String(items)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  child = proc;
  let stderr = '';
  proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    const [word, runId, key] = line.split(' ');
    if (word === 'done') onDone(Number(runId), key!);
  });
  return new Promise((resolve, reject) => {
    proc.on('error', reject);
    proc.on('exit', (code, signal) => (code ? reject(new Error(`writer exited ${code}: ${stderr}`)) : resolve(signal)));
  });
}

describe('crash safety and concurrency', () => {
  it('keeps every row committed before a SIGKILL, and the file passes integrity_check', async () => {
    const file = path.join(dir, 'dsbench.db');
    const done: string[] = [];
    const exit = startWriter(file, 5000, (runId, key) => {
      expect(runId).toBe(1);
      if (done.push(key) === 300) child!.kill('SIGKILL');
    });
    expect(await exit).toBe('SIGKILL');
    // Lines already in the pipe when the signal landed arrive too: they were committed as well.
    expect(done.length).toBeGreaterThanOrEqual(300);
    expect(done.length).toBeLessThan(5000);

    const store = openStore(file);
    try {
      expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(store.db.pragma('foreign_key_check')).toEqual([]);
      const state = store.recorder.loadRun(1)!;
      expect(state.items).toHaveLength(5000);
      const byKey = new Map(state.items.map((i) => [i.key, i]));
      for (const key of done) {
        expect(byKey.get(key)).toMatchObject({ status: 'done', outcome: 'completed', turns: [{ turn: 0, state: 'completed' }] });
      }
      const turns = [...iterateTurns(store.db, 1)];
      expect(turns.length).toBeGreaterThanOrEqual(done.length);
      for (const t of turns.slice(0, done.length)) expect(t).toMatchObject({ state: 'completed', credits: 2.5, polls: 4 });
      const sources = store.db
        .prepare('SELECT count(*) FROM sources WHERE run_id = 1 AND turn = 0 AND item_key IN (SELECT value FROM json_each(?))')
        .pluck()
        .get(JSON.stringify(done));
      expect(sources).toBe(2 * done.length);
    } finally {
      store.close();
    }
  });

  it('lets another process read while a run writes, without SQLITE_BUSY even with no busy timeout', async () => {
    const file = path.join(dir, 'dsbench.db');
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let written = 0;
    const exit = startWriter(file, 1000, () => {
      if (++written === 20) started();
    });
    await running;

    const reader = openStore(file, { busyTimeoutMs: 0 });
    const completed: number[] = [];
    try {
      for (let round = 0; round < 20; round++) {
        const runs = listRuns(reader.db);
        completed.push(runs.reduce((sum, run) => sum + (run.outcomes.completed ?? 0), 0));
        // The first run: it had 20 items done when reading began (the writer may have started another since).
        const first = runs.at(-1)!;
        let turns = 0;
        for (const _ of iterateTurns(reader.db, first.id)) turns++;
        expect(turns).toBeGreaterThan(0);
        expect(reader.recorder.loadRun(first.id)!.items).toHaveLength(1000);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      reader.close();
    }
    expect(child!.exitCode).toBeNull();
    child!.kill('SIGKILL');
    await exit;
    expect(completed.at(-1)!).toBeGreaterThan(completed[0]!);
  });
});
