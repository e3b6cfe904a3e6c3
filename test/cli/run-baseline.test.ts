// `dsbench run SUITE --baseline REF` against the emulator: the comparison's verdict is the run's exit code,
// its files land beside the database, and a bad reference is refused before anything is asked.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { listRuns } from '../../src/store/queries.js';
import { openStore } from '../../src/store/store.js';
import { dsbenchHere, WIDE } from '../helpers/cli-here.js';
import { FAST, cleanup, emulator, tempDir, writeSuite } from '../runner/fixtures/harness.js';

const TOKEN = 'sgp_baseline_token_0123456789abcdef';
let e: RunningEmulator;
/** The same instance broken: every answer ends in an internal error (the questions are the same, so none is edited). */
let broken: RunningEmulator;

beforeAll(async () => {
  const users = [{ id: 1, username: 'admin', tokens: [{ token: TOKEN, scopes: ['externalapi:read' as const, 'externalapi:write' as const] }] }];
  e = await emulator({ ...FAST, users });
  broken = await emulator({ ...FAST, users, agent: { internalErrorRate: 1 } });
});
afterAll(cleanup);

// Ten: enough that all of them erring is beyond noise at the new-errors gate's share of the false-alarm rate.
const IDS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
/** Questions asked of the broken instance when `broken`; `check` fails every answer's check on question a. */
const suite = (o: { broken?: boolean; check?: boolean } = {}) => `name: nightly-suite
defaults: { api: legacy, poll: { strategy: fixed, interval: 1s } }
questions:
${IDS.map((id) => `  - id: ${id}\n    question: "Where is retryPolicy ${id} implemented?"\n    expect: { contains: ${o.check && id === 'a' ? 'no-such-text' : 'retryPolicy'} }`).join('\n')}
`;

async function run(db: string, o: { broken?: boolean; check?: boolean } = {}, extra: string[] = []) {
  return dsbenchHere(['run', writeSuite(suite(o)), '--endpoint', (o.broken ? broken : e).url, '--db', db, '--quiet', ...extra], { SRC_ACCESS_TOKEN: TOKEN });
}

const runCount = (db: string): number => {
  const store = openStore(db, { readOnly: true });
  try {
    return listRuns(store.db).length;
  } finally {
    store.close();
  }
};

describe('dsbench run --baseline', () => {
  it('exits 0 when the comparison passes, 1 when a gate fails, and writes the comparison beside the database', async () => {
    const db = path.join(tempDir(), 'runs.db');
    expect((await run(db)).code).toBe(0);
    expect((await dsbenchHere(['baseline', 'bless', 'latest', '--name', 'good', '--db', db])).code).toBe(0);
    const same = await run(db, {}, ['--baseline', 'blessed:good']);
    expect(same.code).toBe(ExitCode.ok);
    expect(same.stdout).toContain('Compared with --baseline blessed:good: passed (exit 0');
    expect(existsSync(path.join(path.dirname(db), 'runs-compare-1-vs-2-default-vs-default', 'compare.md'))).toBe(true);

    const broken = await run(db, { broken: true }, ['--baseline', 'blessed:good']);
    expect(broken.code).toBe(ExitCode.expectationsFailed);
    expect(broken.stdout).toContain('Compared with --baseline blessed:good: FAILED (exit 1');
    expect(broken.stdout).toContain('Failed: new-errors');
    // Without --confirm, on an instance that outlives the run: the next step is `dsbench confirm`.
    expect(broken.stdout).toContain('Before acting on one night: dsbench confirm 3 --baseline 1');

    const json = await run(db, {}, ['--baseline', 'window:2', '--json']);
    expect(json.code).toBe(ExitCode.ok);
    const parsed = JSON.parse(json.stdout) as { exitCode: number; comparison: { failed: boolean; baseline: { window: { requested: number; runIds: number[] } } } };
    expect(parsed.exitCode).toBe(0);
    // Run 3 erred: it is no passing night, so the window pools runs 2 and 1.
    expect(parsed.comparison.baseline.window).toEqual({ requested: 2, runIds: [2, 1] });
  }, 60_000);

  it('lets the comparison decide: checks that fail in both runs alike pass; the compare gate flags apply', async () => {
    const db = path.join(tempDir(), 'runs.db');
    expect((await run(db, { check: true })).code).toBe(ExitCode.expectationsFailed);
    const again = await run(db, { check: true }, ['--baseline', 'latest']);
    expect(again.code).toBe(ExitCode.ok);
    expect(again.stdout).toContain('Compared with --baseline latest: passed');
    const strict = await run(db, { check: true }, ['--baseline', '1', '--fail-on', 'pass-rate,unpaired', '--min-pairs', '100']);
    expect(strict.code).toBe(ExitCode.nothingCompared);
    expect(strict.stdout).toContain('NOTHING TO JUDGE (exit 8');
    expect(strict.stdout).toMatch(/unpaired +yes/);
    expect(strict.stdout).toMatch(/new-errors +no/);
  }, 60_000);

  it("pools and blesses nights by the verdict they ended with: their comparison's when they had one, else their own", async () => {
    const db = path.join(tempDir(), 'runs.db');
    // Run 1: question a's check fails, as a benchmark's checks fail every night: its own verdict fails.
    expect((await run(db, { check: true })).code).toBe(ExitCode.expectationsFailed);
    // Run 2: the same, judged unchanged against run 1: a night that passed.
    expect((await run(db, { check: true }, ['--baseline', '1'])).code).toBe(ExitCode.ok);
    // Run 3: every check passes, but its comparison had nothing to judge (exit 8): no night that passed.
    expect((await run(db, {}, ['--baseline', '1', '--fail-on', 'unpaired', '--min-pairs', '100'])).code).toBe(ExitCode.nothingCompared);
    const pooled = await run(db, { check: true }, ['--baseline', 'window:3', '--json']);
    expect(pooled.code).toBe(ExitCode.ok);
    expect((JSON.parse(pooled.stdout) as { comparison: { baseline: { window: { runIds: number[] } } } }).comparison.baseline.window.runIds).toEqual([2]);

    expect((await dsbenchHere(['baseline', 'bless', '2', '--name', 'unchanged', '--db', db])).code).toBe(ExitCode.ok);
    const refused = await dsbenchHere(['baseline', 'bless', '3', '--name', 'undecided', '--db', db]);
    expect(refused.code).toBe(ExitCode.usage);
    expect(refused.stderr).toContain('its comparison with its baseline did not pass (exit 8)');
    // runs shows both verdicts: the run's own and the one it ended with against its baseline.
    const runs = (await dsbenchHere(['runs', '--db', db], WIDE)).stdout;
    expect(runs).toContain('checks failed (exit 1); vs baseline unchanged');
    expect(runs).toContain('passed (exit 0); vs baseline undecided');
  }, 60_000);

  it('refuses an unknown blessed: name, a window with no passing run and --shard before asking anything', async () => {
    const db = path.join(tempDir(), 'runs.db');
    expect((await run(db, { check: true })).code).toBe(ExitCode.expectationsFailed);
    const unknown = await run(db, {}, ['--baseline', 'blessed:nope']);
    expect(unknown.code).toBe(ExitCode.usage);
    expect(unknown.stderr).toContain('no baseline named "nope"');
    const window = await run(db, {}, ['--baseline', 'window:3']);
    expect(window.code).toBe(ExitCode.usage);
    expect(window.stderr).toContain('--baseline window:3: nothing to pool in');
    expect(window.stderr).toContain('(suite nightly-suite, targets default; judged unchanged against their own --baseline, or, run without one, every check passed), and of the 1 finished run of it none passed (checks failed: 1)');
    expect(window.stderr).toContain('Bless a night to start from');
    expect(window.stderr).toContain('Nothing was asked');
    expect((await run(db, {}, ['--baseline', 'latest', '--shard', '1/2'])).code).toBe(ExitCode.usage);
    expect(runCount(db)).toBe(1);
  }, 60_000);
});
