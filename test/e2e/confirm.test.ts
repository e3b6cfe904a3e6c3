// dsbench confirm against the emulator's realistic noise: the baseline night on an unchanged service, the
// candidate night on one whose token-limit errors went from 4% to 60%, both on one endpoint (the emulator
// started again on the same port). The confirmation re-asks the questions behind the failing gate as a run of
// its own; SIGKILL in its middle and the same command again resume it, asking nothing twice.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { listRuns, nightVerdict, storedItems } from '../../src/store/index.js';
import { WIDE, dsbenchHere } from '../helpers/cli-here.js';
import { INLINE_SEARCH, op } from '../helpers/emulator.js';
import { peek, startCli, until } from '../runner/fixtures/cli.js';
import { cleanup, tempDir, writeSuite } from '../runner/fixtures/harness.js';

const QUESTIONS = 12;
const SUITE = `name: confirm-e2e
defaults: { api: versioned, repeats: 2, concurrency: 12, poll: { strategy: fixed, interval: 30ms, min: 10ms } }
questions:
${Array.from({ length: QUESTIONS }, (_, i) => `  - id: q${String(i).padStart(2, '0')}\n    question: "Where is handler${i} implemented?"\n    expect: { matches: ["/-/blob/"] }`).join('\n')}
`;

// Answers take about 0.3-1.5 s of real time (the realistic profile's median 150 s at 0.004).
const night = (seed: string, port: number, tokenLimitRate?: number): EmulatorOptions => ({
  port, seed, timeScale: 0.004, startTime: '2026-01-05T03:00:00Z', noise: { profile: 'realistic', serviceSeed: 'confirm-e2e', regression: tokenLimitRate === undefined ? {} : { tokenLimitRate } },
});

let dir: string;
let db: string;
let suiteFile: string;
let candidate: RunningEmulator;
let env: Record<string, string>;
const emulators: RunningEmulator[] = [];

async function service(options: EmulatorOptions): Promise<RunningEmulator> {
  const e = await startEmulator(options, INLINE_SEARCH);
  emulators.push(e);
  return e;
}

beforeAll(async () => {
  dir = tempDir('dsbench-confirm-');
  db = path.join(dir, 'nights.db');
  suiteFile = writeSuite(SUITE, 'suite.yaml', dir);
  const before = await service(night('a', 0));
  env = { SRC_ACCESS_TOKEN: before.adminToken };
  const port = Number(new URL(before.url).port);
  expect((await dsbenchHere(['run', suiteFile, '--endpoint', before.url, '--db', db, '--label', 'nightly', '--reporter', 'quiet'], env)).code).toBeLessThanOrEqual(1);
  await before.stop();
  candidate = await service(night('b', port, 0.6));
  expect((await dsbenchHere(['run', suiteFile, '--endpoint', candidate.url, '--db', db, '--label', 'nightly', '--reporter', 'quiet'], env)).code).toBeLessThanOrEqual(1);
}, 120_000);

afterAll(async () => {
  await Promise.all(emulators.map((e) => e.stop()));
  await cleanup();
});

// 13 items: no count of driving questions up to the suite's 12 but 1 divides it, so the worst get one more repeat.
const BUDGET = 13;
const confirmArgs = (extra: string[] = []) => ['confirm', '2', '--baseline', '1', '--db', db, '--endpoint', candidate.url, '--confirm-budget', String(BUDGET), '--confirm-alpha', '0.0001%', '--out', path.join(dir, 'out'), ...extra];

describe('dsbench confirm: bad input', () => {
  it('refuses without --baseline, saying why', async () => {
    const r = await dsbenchHere(['confirm', '2', '--db', db], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('a confirmation needs --baseline');
  });

  it('refuses when the endpoint changed since the run (another --endpoint, or SRC_ENDPOINT now elsewhere)', async () => {
    const other = await dsbenchHere(['confirm', '2', '--baseline', '1', '--db', db, '--endpoint', 'http://127.0.0.1:9'], env);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('names another instance');
    const ambient = await dsbenchHere(['confirm', '2', '--baseline', '1', '--db', db], { ...env, SRC_ENDPOINT: 'http://127.0.0.1:9' });
    expect(ambient.code).toBe(2);
    expect(ambient.stderr).toContain('The endpoint changed since the run');
  });

  it('refuses a baseline that ran on another endpoint than the run', async () => {
    const elsewhere = await service(night('c', 0));
    const r = await dsbenchHere(['run', suiteFile, '--endpoint', elsewhere.url, '--db', db, '--label', 'elsewhere', '--reporter', 'quiet', '--only', 'q00', '--repeats', '1'], env);
    expect(r.code).toBeLessThanOrEqual(1);
    const id = peek(db, (d) => listRuns(d).find((x) => x.label === 'elsewhere')!.id)!;
    const refused = await dsbenchHere(['confirm', String(id), '--baseline', '1', '--db', db, '--endpoint', elsewhere.url], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('the endpoint changed between them');
    await elsewhere.stop();
  }, 60_000);
});

describe('dsbench confirm: a second look', () => {
  it('re-asks the questions behind the failing gate as its own run; SIGKILL and the same command resume it, asking nothing twice; the baseline is never written', async () => {
    const baselineBefore = peek(db, (d) => ({ run: listRuns(d).find((r) => r.id === 1), items: storedItems(d, 1) }))!;
    const candidateItems = peek(db, (d) => storedItems(d, 2))!;
    const createsBefore = candidate.counters()[op('versioned', 'create')] ?? 0;
    const child = startCli(confirmArgs(), env);
    // Kill once the confirmation has sent a question and not all of them have ended.
    await until(
      'a confirmation run with a question sent',
      () => peek(db, (d) => {
        const c = listRuns(d).find((r) => r.confirmOf === 2);
        const items = c ? storedItems(d, c.id) : [];
        return items.some((i) => i.conversationRef !== null) && items.some((i) => i.itemStatus !== 'done');
      }),
      60_000,
    );
    child.process.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');

    const resumed = await dsbenchHere([...confirmArgs(), '--format', 'json'], env);
    const json = JSON.parse(resumed.stdout) as { verdict: string; exitCode: number; confirmRunId: number; secondLook: { secondLookRegressed: string[] }; reasked: { items: number; repeats: number; questionRepeats: number[]; questions: string[]; budget: number } };
    expect(resumed.code, resumed.stderr).toBe(json.exitCode);
    // A strong rise of errors that the first look cannot call at a false-alarm rate of one in a million; the
    // second look's exact conditional test, counting the re-asked items, does.
    expect(json.verdict).toBe('regressed');
    expect(resumed.code).toBe(1);
    expect(json.secondLook.secondLookRegressed).toEqual(['new-errors']);
    const confirmations = peek(db, (d) => listRuns(d).filter((r) => r.confirmOf === 2))!;
    expect(confirmations.map((r) => [r.id, r.status])).toEqual([[json.confirmRunId, 'completed']]);
    // The whole budget asked, over questions that took it unevenly: the worst first, one more repeat each.
    const { questions, questionRepeats: repeats, items } = json.reasked;
    expect(json.reasked.repeats).toBe(repeats[0]);
    expect(questions.length).toBeGreaterThan(1);
    expect(repeats).toHaveLength(questions.length);
    expect(repeats).toEqual([...repeats].sort((a, b) => b - a));
    expect(repeats[0]! - repeats.at(-1)!).toBe(1);
    expect(repeats.reduce((a, n) => a + n, 0)).toBe(BUDGET);
    expect(items).toBe(BUDGET);
    expect(peek(db, (d) => storedItems(d, json.confirmRunId).length)).toBe(BUDGET);
    // Every re-asked item asked once on the candidate's service, across the kill.
    expect((candidate.counters()[op('versioned', 'create')] ?? 0) - createsBefore).toBe(items);

    // Again: the decision is made from what was asked, nothing more is asked.
    const again = await dsbenchHere([...confirmArgs(), '--format', 'json'], env);
    expect(JSON.parse(again.stdout).verdict).toBe('regressed');
    expect((candidate.counters()[op('versioned', 'create')] ?? 0) - createsBefore).toBe(items);
    // The run's night verdict is now the confirmation's: it joins no pooled baseline.
    expect(peek(db, (d) => nightVerdict(d, 2))).toEqual({ exitCode: 1, compared: true });

    // Counted apart: the candidate run's items are its own; runs shows the confirmation; the baseline is as it was.
    expect(peek(db, (d) => storedItems(d, 2))).toEqual(candidateItems);
    expect(peek(db, (d) => ({ run: listRuns(d).find((r) => r.id === 1), items: storedItems(d, 1) }))).toEqual(baselineBefore);
    const runs = await dsbenchHere(['runs', '--db', db], WIDE);
    expect(runs.stdout).toContain('confirm of');
    const report = await dsbenchHere(['report', '2', '--db', db, '--out', path.join(dir, 'report')]);
    expect(report.stdout).toContain(`Confirmed by run ${json.confirmRunId} (dsbench confirm): ${items} items re-asked`);
    const own = await dsbenchHere(['report', String(json.confirmRunId), '--db', db, '--out', path.join(dir, 'own')]);
    expect(own.stdout).toContain('A confirmation of run 2');
    const latest = await dsbenchHere(['compare', 'nightly~1', 'nightly', '--db', db, '--format', 'json', '--out', path.join(dir, 'cmp')]);
    expect(JSON.parse(latest.stdout).candidate.runId).toBe(2);
  }, 180_000);
});

describe('dsbench confirm: its flags', () => {
  it.each([['0'], ['-3'], ['0%'], ['150%'], ['some']])('refuses --confirm-budget %s with what it takes', async (budget) => {
    const r = await dsbenchHere(['confirm', '2', '--baseline', '1', '--db', db, '--confirm-budget', budget], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--confirm-budget');
  });

  it('refuses --confirm-alpha outside (0%, 50%)', async () => {
    const r = await dsbenchHere(['confirm', '2', '--baseline', '1', '--db', db, '--confirm-alpha', '60%'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--confirm-alpha');
  });
});
