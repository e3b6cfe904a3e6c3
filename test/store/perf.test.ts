import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Store, openStore } from '../../src/store/store.js';
import { TARGETS, completedTurn, questionItems, runInfo } from './fixtures/sample.js';

let dir: string;
let store: Store;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsbench-perf-'));
  store = openStore(path.join(dir, 'dsbench.db'));
});
afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// The runner may record ~300 state changes a second; each must be one prepared-statement transaction.
describe('recordTurn throughput', () => {
  it('prepares nothing per call and keeps well ahead of 300 calls a second', () => {
    const recorder = store.recorder;
    const items = questionItems(500);
    const runId = recorder.createRun(runInfo(), TARGETS, items);
    const prepare = vi.spyOn(store.db, 'prepare');
    const calls = 3000;
    const started = performance.now();
    for (let i = 0; i < calls; i++) {
      const key = items[i % items.length]!.key;
      recorder.recordTurn(runId, key, 0, i % 3 === 2 ? completedTurn(i) : { state: 'processing', text: 'q', polls: i });
    }
    const perSecond = calls / ((performance.now() - started) / 1000);
    expect(prepare).not.toHaveBeenCalled();
    expect(perSecond).toBeGreaterThan(1000);
  });
});
