// A refused token stops its target at once with a clear message; other targets carry on.
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { closedPort } from '../helpers/server.js';
import { storedItems } from '../../src/store/index.js';
import { asked, cleanup, corpusDir, emulator, FAST, op, runSuite, storedRun, suite, target } from './fixtures/harness.js';

afterEach(cleanup);

const SUITE = `
name: auth
defaults: { poll: { strategy: fixed, interval: 1s } }
questions:
  - id: q1
    question: Where is retryPolicy implemented?
  - id: q2
    question: Where is backoffDelay implemented?
    followups: [Who calls it?]
  - id: q3
    question: Where is parseSuite defined?
searches:
  - id: s1
    query: retry
`;

const BAD = 'sgp_wrong_token_0123456789';

describe('a bad token', () => {
  it.each(['legacy', 'versioned'] as const)('%s: the preflight stops the target before anything is asked; exit code 3', async (api) => {
    const e = await emulator({ ...FAST, corpus: { dir: corpusDir() } });
    const run = await runSuite(await suite(SUITE), [target({ name: 'prod', emulator: e, token: BAD })], { api });
    try {
      const { db, result } = run;
      expect(result.exitCode).toBe(ExitCode.unreachable);
      expect(result.status).toBe('failed');
      expect(storedRun(db, result.runId).status).toBe('failed');
      expect(asked(e, api)).toBe(0);
      expect(e.counters()[op(api, 'list')]).toBe(1);
      expect(e.counters()['stream.search']).toBe(0);
      const all = storedItems(db, result.runId);
      expect(all.every((i) => i.itemStatus === 'skipped' && i.outcome === 'skipped')).toBe(true);
      const message = all[0]!.message!;
      expect(message).toContain(`target prod (${e.url})`);
      expect(message).toContain('HTTP 401');
      expect(message).toContain('Check SRC_ACCESS_TOKEN');
      expect(message).not.toContain(BAD);
      expect(run.reporter.logs).toEqual([`${message}; its items are skipped`]);
      expect(result.targets.prod).toMatchObject({ counts: { skipped: 4 }, stopped: message });
    } finally {
      run.close();
    }
  });

  it('no token at all is refused the same way', async () => {
    const e = await emulator();
    const run = await runSuite(await suite(SUITE), [target({ name: 'prod', emulator: e, token: undefined })]);
    try {
      expect(run.result.exitCode).toBe(ExitCode.unreachable);
      expect(asked(e, 'versioned')).toBe(0);
      expect(run.result.targets.prod?.counts).toEqual({ skipped: 4 });
    } finally {
      run.close();
    }
  });

  it('two targets, one with a bad token: the other still runs everything', async () => {
    const [good, bad] = await Promise.all([emulator({ ...FAST, corpus: { dir: corpusDir() } }), emulator()]);
    const run = await runSuite(await suite(SUITE), [target({ name: 'good', emulator: good }), target({ name: 'bad', emulator: bad, token: BAD })]);
    try {
      const { db, result } = run;
      expect(result.exitCode).toBe(ExitCode.unreachable);
      expect(result.targets.good?.counts).toEqual({ completed: 3, complete: 1 });
      expect(result.targets.bad?.counts).toEqual({ skipped: 4 });
      expect(asked(good, 'versioned')).toBe(4);
      expect(asked(bad, 'versioned')).toBe(0);
      expect(storedItems(db, result.runId).filter((i) => i.target === 'good').every((i) => i.itemStatus === 'done')).toBe(true);
    } finally {
      run.close();
    }
  });

  it('an unreachable target is stopped the same way, with the connection error', async () => {
    const url = await closedPort();
    const run = await runSuite(await suite(SUITE), [target({ name: 'down', emulator: url })], { retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 } });
    try {
      expect(run.result.exitCode).toBe(ExitCode.unreachable);
      expect(run.result.targets.down?.counts).toEqual({ skipped: 4 });
      expect(run.result.targets.down?.stopped).toMatch(/could not reach the instance \(ECONNREFUSED/);
    } finally {
      run.close();
    }
  });
});

describe('a token without write scope (403 on the first create)', () => {
  it('stops the target: at most one create per concurrency slot, the rest skipped', async () => {
    const e = await emulator({ ...FAST, corpus: { dir: corpusDir() } });
    const run = await runSuite(await suite(SUITE.replace('defaults: {', 'defaults: { concurrency: 1,')), [
      target({ name: 'ro', emulator: e, token: 'sgp_emulator_readonly_token' }),
    ]);
    try {
      const { db, result } = run;
      expect(result.exitCode).toBe(ExitCode.unreachable);
      expect(e.counters()[op('versioned', 'create')]).toBe(1);
      const questions = storedItems(db, result.runId).filter((i) => i.kind === 'question');
      expect(questions.map((i) => i.outcome)).toEqual(['client_error', 'skipped', 'skipped']);
      expect(questions[0]!.message).toContain('HTTP 403');
      expect(questions[1]!.message).toContain('HTTP 403');
    } finally {
      run.close();
    }
  });
});
