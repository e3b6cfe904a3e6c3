// Group commit: a run sends no request before the recorder says what it recorded is committed. That
// answer is held back here once a send is recorded: no create reaches the server until it is let go.
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { Recorder } from '../../src/runner/recorder.js';
import { executeRun } from '../../src/runner/run.js';
import { openStore, storedItems } from '../../src/store/index.js';
import { CapturingReporter, asked, cleanup, emulator, runDefaults, storedTurns, suite, target, tempDir } from './fixtures/harness.js';

afterEach(cleanup);

const SUITE = `
name: group-commit
defaults: { concurrency: 3, poll: { strategy: fixed, interval: 20ms, min: 10ms } }
questions:
  - id: q1
    question: Where is retryPolicy implemented?
  - id: q2
    question: Where is backoffDelay implemented?
  - id: q3
    question: Where is the transport implemented?
`;

describe('group commit in a run', () => {
  it('sends no create until the recorder says its sending turn is committed', async () => {
    const e = await emulator({ timeScale: 0.0001 });
    const loaded = await suite(SUITE);
    const dbPath = path.join(tempDir(), 'group.db');
    const store = openStore(dbPath);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Held from the first send recorded on (the run's preflight read goes through).
    let holding = false;
    let sent = false;
    const reader = new Database(dbPath, { readonly: true });
    const inner = store.recorder;
    const recorder = new Proxy(inner, {
      get(object, property, receiver) {
        if (property === 'recordTurn') {
          return (...args: Parameters<Recorder['recordTurn']>) => {
            if (args[3].state === 'sending' && !sent) [sent, holding] = [true, true];
            return inner.recordTurn(...args);
          };
        }
        if (property !== 'committed') return Reflect.get(object, property, receiver);
        return () => {
          const pending = inner.committed();
          if (!holding) return pending;
          // Held: the transport must wait, whatever the recorder has pending.
          return held.then(() => pending);
        };
      },
    }) as Recorder;
    try {
      let runId = 0;
      const run = executeRun({
        ...runDefaults(),
        maxQuotaWaitMs: 1000,
        suite: loaded,
        targets: [target({ name: 'main', emulator: e })],
        recorder,
        observers: [new CapturingReporter()],
        onRunOpened: (id) => (runId = id),
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(sent).toBe(true);
      // The sends are recorded and committed (the end of the event loop's turn), and not one went out.
      expect(storedTurns(reader, runId).filter((t) => t.state === 'sending').length).toBeGreaterThan(0);
      expect(asked(e, 'versioned')).toBe(0);
      holding = false;
      release();
      const result = await run;
      expect(result.targets.main?.counts).toEqual({ completed: 3 });
      expect(asked(e, 'versioned')).toBe(3);
      expect(storedItems(reader, runId).filter((i) => i.itemStatus === 'done').length).toBe(3);
    } finally {
      reader.close();
      store.close();
    }
  });
});
