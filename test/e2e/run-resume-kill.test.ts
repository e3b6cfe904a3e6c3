// The required proof: SIGKILL `dsbench run` in the middle of a run against the emulator, resume it, and
// check on the emulator's counters that no question was asked twice and in the database that no observed
// result was lost.
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { type StoredItem, type StoredTurn, listRuns, storedItems } from '../../src/store/index.js';
import { peek, startCli, runChildCli, until } from '../runner/fixtures/cli.js';
import { cleanup, emulator, op, tempDir, writeSuite } from '../runner/fixtures/harness.js';

/** Twenty conversations, every third with follow-ups: 20 + 7 x 2 = 34 turns. */
const QUESTIONS = Array.from({ length: 20 }, (_, i) => ({
  id: `q${String(i).padStart(2, '0')}`,
  text: `Where is function${i} of module${i % 4} implemented?`,
  followups: i % 3 === 0 ? [`Which callers use function${i}?`, `How is function${i} tested?`] : [],
}));
const PLANNED_TURNS = QUESTIONS.reduce((n, q) => n + 1 + q.followups.length, 0);

const SUITE = `name: kill-resume
defaults:
  concurrency: 5
  poll: { strategy: fixed, interval: 50ms, min: 20ms }
questions:
${QUESTIONS.map((q) => `  - id: ${q.id}\n    question: ${q.text}\n${q.followups.length ? `    followups: [${q.followups.join(', ')}]\n` : ''}`).join('')}`;

interface Snapshot {
  items: StoredItem[];
  turns: StoredTurn[];
}

/** The items of the one run with their turns, and the turns apart. */
function snapshot(db: Database.Database): Snapshot {
  const items = storedItems(db, 1);
  return { items, turns: items.flatMap((i) => i.turns) };
}

const TERMINAL = new Set(['completed', 'error', 'canceled', 'timeout', 'client_error']);

let e: RunningEmulator;
beforeAll(async () => {
  // Answers take about 0.3-1.2 s of real time (median 30 s at time scale 0.02); virtual time starts now.
  e = await emulator({ timeScale: 0.02, medianMs: 30_000, sigma: 0.4, seed: 11 });
});
afterAll(cleanup);

describe('dsbench run, SIGKILL, then --resume', () => {
  it('asks nothing twice and loses nothing observed', async () => {
    expect(PLANNED_TURNS).toBe(34);
    const dbPath = path.join(tempDir(), 'kill.db');
    const suiteFile = writeSuite(SUITE);
    // A send may still land up to its request timeout after it was made: a resume waits that long before asking again.
    const env = { SRC_ACCESS_TOKEN: e.adminToken };
    const child = startCli(['run', suiteFile, '--endpoint', e.url, '--db', dbPath, '--reporter', 'lines', '--request-timeout', '2s'], env);

    // Wait until some items are done and some are processing on the server, then kill at once.
    const before = await until(
      'some items done and some processing',
      () =>
        peek(dbPath, (db) => {
          const seen = snapshot(db);
          const done = seen.items.filter((i) => i.itemStatus === 'done').length;
          const processing = seen.turns.filter((t) => t.state === 'processing').length;
          return done >= 3 && processing >= 2 ? seen : undefined;
        }),
      20_000,
    );
    child.process.kill('SIGKILL');
    const killed = await child.exited;
    expect(killed.signal).toBe('SIGKILL');

    const atKill = peek(dbPath, snapshot)!;
    const runId = peek(dbPath, (db) => listRuns(db).map(({ id, status }) => ({ id, status }))[0])!;
    expect(runId.status).toBe('running');
    const unfinished = atKill.items.filter((i) => i.itemStatus !== 'done').length;
    expect(unfinished).toBeGreaterThan(0);

    const resumed = await runChildCli(['run', '--resume', String(runId.id), '--endpoint', e.url, '--db', dbPath, '--reporter', 'lines', '--request-timeout', '2s'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`dsbench: run ${runId.id}: 20 items on default (`);

    // The emulator: every planned turn asked exactly once.
    const counters = e.counters();
    expect(counters[op('versioned', 'create')]).toBe(QUESTIONS.length);
    expect(counters[op('versioned', 'create')]! + counters[op('versioned', 'addQuestion')]!).toBe(PLANNED_TURNS);
    const records = e.questionRecords();
    expect(records).toHaveLength(PLANNED_TURNS);
    const byConversation = new Map<number, string[]>();
    for (const r of records) byConversation.set(r.conversationId, [...(byConversation.get(r.conversationId) ?? []), r.text]);
    for (const texts of byConversation.values()) expect(new Set(texts).size).toBe(texts.length);
    // Each conversation is exactly one suite question with its follow-ups, in order.
    expect([...byConversation.values()].sort((a, b) => a[0]!.localeCompare(b[0]!))).toEqual(
      QUESTIONS.map((q) => [q.text, ...q.followups]).sort((a, b) => a[0]!.localeCompare(b[0]!)),
    );

    // The database: one run, completed, every item done once, nothing observed before the kill lost.
    const after = peek(dbPath, (db) => ({
      ...snapshot(db),
      runs: listRuns(db).map(({ id, status, endedAt }) => ({ id, status, endedAt })),
    }))!;
    expect(after.runs).toEqual([{ id: runId.id, status: 'completed', endedAt: expect.any(String) }]);
    expect(after.items.map((i) => [i.itemStatus, i.outcome])).toEqual(QUESTIONS.map(() => ['done', 'completed']));
    expect(after.turns).toHaveLength(PLANNED_TURNS);
    expect(new Set(after.items.map((i) => i.conversationRef)).size).toBe(QUESTIONS.length);

    for (const observed of [before, atKill]) {
      // Items done before the kill, and their turns, are unchanged.
      for (const item of observed.items.filter((i) => i.itemStatus === 'done')) {
        expect(after.items.find((i) => i.itemKey === item.itemKey)).toEqual(item);
      }
      // Every turn seen is still there: finished turns unchanged, the others with their text, send time
      // and conversation, now finished.
      for (const turn of observed.turns) {
        const now = after.turns.find((t) => t.itemKey === turn.itemKey && t.turn === turn.turn);
        expect(now, `${turn.itemKey} turn ${turn.turn}`).toBeDefined();
        if (TERMINAL.has(turn.state)) {
          expect(now).toEqual(turn);
        } else {
          expect(now).toMatchObject({ text: turn.text, state: 'completed' });
          if (turn.state === 'processing') expect(now!.sentAt).toBe(turn.sentAt);
        }
      }
      // A conversation recorded before the kill is the one the item ends with (re-polled, not replaced).
      for (const item of observed.items.filter((i) => i.conversationRef !== null)) {
        expect(after.items.find((i) => i.itemKey === item.itemKey)?.conversationRef).toBe(item.conversationRef);
      }
    }
  }, 60_000);
});
