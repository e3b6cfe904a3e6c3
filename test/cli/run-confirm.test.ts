// `dsbench run SUITE --baseline REF --confirm`: a comparison that compared something is confirmed as
// `dsbench confirm` confirms it, at once, on the run's own targets (the embedded emulator is still up), and the
// confirmed verdict is the exit code. Bad input is refused before anything is asked; a run that did not end
// as a night is neither compared nor confirmed.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { listRuns } from '../../src/store/queries.js';
import { openStore } from '../../src/store/store.js';
import { dsbenchHere, WIDE } from '../helpers/cli-here.js';
import { cleanup, emulator, FAST, tempDir, writeSuite } from '../runner/fixtures/harness.js';

afterAll(cleanup);

const SUITE = `name: confirm-embedded
defaults: { api: legacy, repeats: 2, concurrency: 12, poll: { strategy: fixed, interval: 30ms, min: 10ms } }
questions:
${Array.from({ length: 12 }, (_, i) => `  - id: q${String(i).padStart(2, '0')}\n    question: "Where is handler${i} implemented?"`).join('\n')}
`;

const runs = (db: string) => {
  const store = openStore(db, { readOnly: true });
  try {
    return listRuns(store.db);
  } finally {
    store.close();
  }
};

describe('dsbench run --baseline --confirm', () => {
  it('on the embedded emulator: a regressed night takes the second look in the same process, whose verdict is the exit code', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'nights.db');
    const suite = writeSuite(SUITE, 'suite.yaml', dir);
    // Answers in about a second; the realistic noise's latency is far above the quiet emulator's.
    const embedded = ['--db', db, '--reporter', 'quiet', '--emulator-time-scale', '0.004'];
    const first = await dsbenchHere(['run', suite, ...embedded]);
    expect(first.code, first.stderr).toBe(0);
    expect((await dsbenchHere(['baseline', 'bless', 'latest', '--name', 'good', '--db', db])).code).toBe(0);
    const night = await dsbenchHere(['run', suite, ...embedded, '--emulator-noise', 'realistic', '--baseline', 'blessed:good', '--confirm', '--json']);
    expect(night.code, night.stderr).toBe(ExitCode.expectationsFailed);
    const parsed = JSON.parse(night.stdout) as { exitCode: number; comparison: { verdict: string; verdictLine: string }; confirmation: { verdict: string; exitCode: number; verdictLine: string } };
    expect(parsed.exitCode).toBe(ExitCode.expectationsFailed);
    // The second look is being taken: the comparison points to no `dsbench confirm` (refused here anyway).
    expect(parsed.comparison.verdict).toBe('regressed');
    expect(parsed.comparison.verdictLine).toMatch(/^Verdict: REGRESSED \([^)]*\); exit 1$/);
    expect(parsed.confirmation.verdict).toBe('regressed');
    expect(parsed.confirmation.verdictLine).toContain('confirmed');
    const written = JSON.parse(readFileSync(path.join(dir, 'nights-confirm-2-vs-1', 'confirm.json'), 'utf8')) as { verdict: string; exitCode: number };
    expect(written).toMatchObject({ verdict: 'regressed', exitCode: ExitCode.expectationsFailed });
    // A later `dsbench confirm` of that run has no instance to ask: still refused.
    const later = await dsbenchHere(['confirm', '2', '--baseline', 'blessed:good', '--db', db]);
    expect(later.code).toBe(ExitCode.usage);
    expect(later.stderr).toContain('ran on the embedded emulator, which ended with its process');
    expect(readFileSync(path.join(dir, 'nights-confirm-2-vs-1', 'confirm.md'), 'utf8')).not.toContain('dsbench confirm 2');
    // Without --confirm on the embedded emulator, the next step is to run again with it, not `dsbench confirm`.
    const plain = await dsbenchHere(['run', suite, ...embedded, '--emulator-noise', 'realistic', '--baseline', 'blessed:good'], WIDE);
    expect(plain.code, plain.stderr).toBe(ExitCode.expectationsFailed);
    expect(plain.stdout).toMatch(/Verdict: REGRESSED \([^)]*\); exit 1\. Before acting on one night, run again with --confirm \(dsbench confirm re-asks the run's own instance/);
    expect(plain.stdout).not.toContain('dsbench confirm 4');
  }, 120_000);

  it('against a pooled window (window:2): the second look compares with every run pooled, through run --confirm and dsbench confirm', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'nights.db');
    const suite = writeSuite(SUITE, 'suite.yaml', dir);
    const embedded = ['--db', db, '--reporter', 'quiet', '--emulator-time-scale', '0.004'];
    for (let i = 0; i < 2; i++) expect((await dsbenchHere(['run', suite, ...embedded])).code).toBe(0);
    const night = await dsbenchHere(['run', suite, ...embedded, '--emulator-noise', 'realistic', '--baseline', 'window:2', '--confirm', '--json']);
    expect(night.code, night.stderr).toBe(ExitCode.expectationsFailed);
    expect((JSON.parse(night.stdout) as { confirmation: { verdict: string } }).confirmation.verdict).toBe('regressed');
    const written = JSON.parse(readFileSync(path.join(dir, 'nights-confirm-3-vs-window2', 'confirm.json'), 'utf8')) as { verdict: string; baseline: unknown };
    expect(written).toMatchObject({ verdict: 'regressed', baseline: { runId: 2, window: { requested: 2, runIds: [2, 1] } } });
    expect(readFileSync(path.join(dir, 'nights-confirm-3-vs-window2', 'confirm.md'), 'utf8')).toContain('# dsbench confirm: run 3 against window:2, 2 runs pooled (2, 1)');
    // dsbench confirm takes the window too (resolved as compare resolves it); here it has no instance left to ask.
    const later = await dsbenchHere(['confirm', '3', '--baseline', 'window:2', '--db', db]);
    expect(later.code).toBe(ExitCode.usage);
    expect(later.stderr).toContain('ran on the embedded emulator, which ended with its process');
  }, 180_000);

  it('an unchanged night is confirmed at the first look only: nothing re-asked, exit 0', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'nights.db');
    const suite = writeSuite(SUITE, 'suite.yaml', dir);
    const embedded = ['--db', db, '--reporter', 'quiet', '--emulator-time-scale', '0.004'];
    expect((await dsbenchHere(['run', suite, ...embedded])).code).toBe(0);
    const night = await dsbenchHere(['run', suite, ...embedded, '--baseline', '1', '--confirm'], WIDE);
    expect(night.code, night.stdout).toBe(ExitCode.ok);
    // The first look tests every gate by its own test whatever the plain comparison said; here nothing came near.
    expect(night.stdout).toContain('Compared with --baseline 1: passed (exit 0, the confirmation below decides)');
    expect(night.stdout).toContain('No gate crossed at the first look or came near enough to call for a second: nothing asked.');
    expect(night.stdout).toContain('The second look decides the exit code: 0');
    // Each gate's first look whole, on a line of its own: a table cell would cut it mid-figure ("could ha…").
    const second = night.stdout.slice(night.stdout.indexOf('Second look (--confirm)'));
    expect(second).toMatch(/^ {2}- latency regression: not crossed; its interval's bound above 0 at one-sided \S+: unchanged \(.*; could have detected \+[\d.]+% or more$/m);
    expect(second).toMatch(/^ {2}- new-errors: not crossed; \d+ of \d+ questions differ, .* against \S+$/m);
    // The suite has no checks: the pass rate had nothing to test, and says so rather than a test of nothing at a level.
    expect(second).toMatch(/^ {2}- pass-rate: not judged; no question checked on both sides$/m);
    expect(second).not.toContain('…');
    expect(runs(db).filter((r) => r.confirmOf !== null)).toEqual([]);
    expect(JSON.parse(readFileSync(path.join(dir, 'nights-confirm-2-vs-1', 'confirm.json'), 'utf8'))).toMatchObject({ verdict: 'unchanged', confirmRunId: null, secondLook: null });
  }, 120_000);

  it('refuses --confirm without --baseline, or with a bad budget or level, before anything is asked', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'nights.db');
    const suite = writeSuite(SUITE, 'suite.yaml', dir);
    const cases: Array<[string[], string]> = [
      [['--confirm'], '--confirm takes a second look at the comparison with --baseline REF: give --baseline'],
      [['--confirm', '--baseline', '1', '--confirm-budget', 'lots'], '--confirm-budget takes a number of items'],
      [['--confirm', '--baseline', '1', '--confirm-alpha', '60%'], '--confirm-alpha takes a percentage above 0% and below 50%'],
    ];
    for (const [flags, message] of cases) {
      const r = await dsbenchHere(['run', suite, '--db', db, '--reporter', 'quiet', ...flags]);
      expect(r.code, flags.join(' ')).toBe(ExitCode.usage);
      expect(r.stderr).toContain(message);
    }
    expect(existsSync(db)).toBe(false);
  });

  it('refuses --confirm against a baseline that ran on another endpoint before anything is asked', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'nights.db');
    const suite = writeSuite(SUITE, 'suite.yaml', dir);
    const [a, b] = await Promise.all([emulator(FAST), emulator(FAST)]);
    const env = { SRC_ACCESS_TOKEN: a.adminToken };
    expect((await dsbenchHere(['run', suite, '--db', db, '--reporter', 'quiet', '--endpoint', a.url], env)).code).toBe(0);
    const elsewhere = await dsbenchHere(['run', suite, '--db', db, '--reporter', 'quiet', '--endpoint', b.url, '--baseline', '1', '--confirm'], env);
    expect(elsewhere.code).toBe(ExitCode.usage);
    expect(elsewhere.stderr).toContain(`the baseline run 1 ran on default=${a.url}, tonight's run on default=${b.url}`);
    expect(elsewhere.stderr).toContain('nothing was asked');
    expect(runs(db)).toHaveLength(1);
  }, 60_000);

  it('a run that does not end as a night (its instance down) is neither compared nor confirmed: its own exit code stands', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'nights.db');
    const suite = writeSuite(SUITE, 'suite.yaml', dir);
    const instance = await emulator(FAST);
    const env = { SRC_ACCESS_TOKEN: instance.adminToken };
    expect((await dsbenchHere(['run', suite, '--db', db, '--reporter', 'quiet', '--endpoint', instance.url], env)).code).toBe(0);
    // Tonight the same endpoint is down.
    await instance.stop();
    const down = await dsbenchHere(['run', suite, '--db', db, '--reporter', 'quiet', '--endpoint', instance.url, '--max-attempts', '1', '--baseline', '1', '--confirm'], env);
    expect(down.code, down.stdout + down.stderr).toBe(ExitCode.unreachable);
    expect(down.stdout).toContain('No comparison with --baseline 1: the run did not end as a night');
    expect(down.stdout).not.toContain('Second look');
    expect(runs(db).filter((r) => r.confirmOf !== null)).toEqual([]);
  }, 120_000);
});

describe('run --confirm re-asks on the instance it just asked', () => {
  it('a night whose errors rose takes the second look on its own endpoint: the re-asked items are a confirmation, and its verdict is the exit code', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'nights.db');
    const suite = writeSuite(SUITE, 'suite.yaml', dir);
    const good = await emulator(FAST);
    const env = { SRC_ACCESS_TOKEN: good.adminToken };
    expect((await dsbenchHere(['run', suite, '--db', db, '--reporter', 'quiet', '--endpoint', good.url], env)).code).toBe(0);
    // The same endpoint tonight, most of its answers failing.
    const port = Number(new URL(good.url).port);
    await good.stop();
    const worse = await emulator({ ...FAST, port, agent: { internalErrorRate: 0.6 } });
    const night = await dsbenchHere(['run', suite, '--db', db, '--reporter', 'quiet', '--endpoint', worse.url, '--max-attempts', '1', '--baseline', '1', '--confirm', '--confirm-budget', '12', '--confirm-alpha', '0.0001%', '--json'], env);
    const parsed = JSON.parse(night.stdout) as { exitCode: number; comparison: { verdict: string; verdictLine: string }; confirmation: { verdict: string; exitCode: number; confirmRunId: number | null; reasked: { items: number } } };
    expect(['regressed', 'suspect'], JSON.stringify(parsed).slice(0, 3000)).toContain(parsed.comparison.verdict);
    expect(parsed.comparison.verdictLine).not.toContain('dsbench confirm');
    expect(parsed.confirmation.confirmRunId, night.stderr).not.toBeNull();
    expect(parsed.confirmation.reasked.items).toBeGreaterThan(0);
    expect(parsed.confirmation.reasked.items).toBeLessThanOrEqual(12);
    expect(night.code).toBe(parsed.confirmation.exitCode);
    expect(parsed.exitCode).toBe(parsed.confirmation.exitCode);
    expect(runs(db).filter((r) => r.confirmOf === 2).map((r) => r.id)).toEqual([parsed.confirmation.confirmRunId]);
  }, 120_000);
});
