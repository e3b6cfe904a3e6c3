// `--group-concurrency N` and `--group-max-credits N` are totals for the shards of a run group: three shard
// processes share one emulator; the questions in flight at once never exceed N, the credits spent never
// exceed the cap by more than what was in flight when it was reached, and merge reports the spend.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { listRuns, openStore, storedItems } from '../../src/store/index.js';
import { prepareCli } from '../helpers/cli.js';
import { dsbenchHere } from '../helpers/cli-here.js';
import { START } from '../helpers/emulator.js';
import { cleanup, emulator, tempDir, writeSuite } from '../runner/fixtures/harness.js';

const QUESTIONS = 18;
// Each shard alone would ask 12 at once: only the group limit keeps the three under N.
const SUITE = `name: group-limits
defaults: { api: legacy, concurrency: 12, poll: { strategy: fixed, interval: 20ms, min: 10ms } }
questions:
${Array.from({ length: QUESTIONS }, (_, i) => `  - id: q${String(i).padStart(2, '0')}\n    question: "Where is handler${i} implemented?"`).join('\n')}
`;

let e: RunningEmulator;
beforeAll(async () => {
  // Every answer takes 400 ms of real time: long enough for the shards' questions to overlap.
  e = await emulator({ timeScale: 0.004, sigma: 0, medianMs: 100_000, startTime: START });
});
afterAll(cleanup);

interface Asked {
  from: number;
  to: number;
  credits: number;
}

/** Every turn the shards asked: when it was sent, when its end was seen, its credits. */
function asked(dbs: readonly string[]): Asked[] {
  return dbs.flatMap((db) => {
    const store = openStore(db, { readOnly: true });
    try {
      return listRuns(store.db).flatMap((run) =>
        storedItems(store.db, run.id).flatMap((item) =>
          item.turns
            .filter((t) => t.sentAt && t.observedEndAt)
            .map((t) => ({ from: Date.parse(t.sentAt!), to: Date.parse(t.observedEndAt!), credits: (t as { credits?: number | null }).credits ?? 0 })),
        ),
      );
    } finally {
      store.close();
    }
  });
}

/** The most turns in flight at one moment (an end at the same instant as a send frees its place first). */
function mostInFlight(turns: readonly Asked[]): number {
  const events = turns.flatMap((t) => [[t.from, 1], [t.to, -1]] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, delta] of events) most = Math.max(most, (now += delta));
  return most;
}

async function shards(flags: string[]): Promise<{ dbs: string[]; codes: Array<number | null>; outputs: string[] }> {
  const cli = prepareCli();
  const dir = tempDir();
  const suite = writeSuite(SUITE, 'suite.yaml', dir);
  const dbs = [1, 2, 3].map((i) => path.join(dir, `shard-${i}.db`));
  const runs = await Promise.all(
    dbs.map((db, i) => cli.run(['run', suite, '--shard', `${i + 1}/3`, '--group', 'night-1', ...flags, '--endpoint', e.url, '--db', db, '--reporter', 'quiet'], { SRC_ACCESS_TOKEN: e.adminToken })),
  );
  return { dbs, codes: runs.map((r) => r.code), outputs: runs.map((r) => r.stdout + r.stderr) };
}

describe('group limits', () => {
  it('--group-concurrency 4 over 3 shard processes: never more than 4 questions in flight; the summary and merge state the share', async () => {
    const { dbs, codes, outputs } = await shards(['--group-concurrency', '4']);
    expect(codes, outputs.join('\n')).toEqual([0, 0, 0]);
    const turns = asked(dbs);
    expect(turns).toHaveLength(QUESTIONS);
    expect(mostInFlight(turns)).toBeLessThanOrEqual(4);
    expect(outputs[0]).toContain('--group-concurrency 4: this shard asks 2 conversations at once per target');
    expect(outputs[1]).toContain('--group-concurrency 4: this shard asks 1 conversation at once per target');
    const merged = await dsbenchHere(['merge', ...dbs, '--into', path.join(path.dirname(dbs[0]!), 'merged.db')]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toContain('group limits: ');
    expect(merged.stdout).toContain('at most --group-concurrency 4 conversations at once per target');
  }, 120_000);

  it('--group-max-credits over 3 shard processes: the spend passes the cap by no more than what was in flight; merge reports it against the total', async () => {
    const cap = 20;
    const { dbs, codes, outputs } = await shards(['--group-concurrency', '3', '--group-max-credits', String(cap)]);
    // The cap bit: some shard stopped launching on its share.
    expect(codes, outputs.join('\n')).toContain(ExitCode.budgetExceeded);
    const turns = asked(dbs);
    const spent = turns.reduce((sum, t) => sum + t.credits, 0);
    expect(spent).toBeGreaterThan(0);
    expect(turns.length).toBeLessThan(QUESTIONS);
    // At most 3 questions were in flight when the shares ran out: the overshoot is at most theirs.
    const dearest = [...turns].sort((a, b) => b.credits - a.credits).slice(0, 3).reduce((sum, t) => sum + t.credits, 0);
    expect(spent).toBeLessThanOrEqual(cap + dearest);
    expect(outputs[0]).toMatch(/--group-max-credits 20: this shard's cap is [\d.]+; it spent [\d.]+ credits/);
    const merged = await dsbenchHere(['merge', ...dbs, '--into', path.join(path.dirname(dbs[0]!), 'merged.db'), '--json']);
    expect(merged.code, merged.stderr).toBe(0);
    const parsed = JSON.parse(merged.stdout) as { runs: Array<{ groupLimits: { maxCredits: number; creditsSpent: number; concurrency: number } }> };
    expect(parsed.runs[0]!.groupLimits).toEqual({ concurrency: 3, maxCredits: cap, creditsSpent: spent });
  }, 120_000);

  it('refuses --group-* without --group, beside the per-shard flag, or below one conversation per shard', async () => {
    const suite = writeSuite(SUITE);
    const db = path.join(tempDir(), 'none.db');
    const cases: Array<[string[], string]> = [
      [['--group-concurrency', '4'], '--group-concurrency is a total for the shards of a run group: give it with --shard INDEX/COUNT and --group NAME'],
      [['--shard', '1/3', '--group-max-credits', '10'], '--group-max-credits is a total for the shards of a run group'],
      [['--shard', '1/3', '--group', 'g', '--group-concurrency', '4', '--concurrency', '2'], 'give --group-concurrency (the group\'s total) or --concurrency (each shard\'s own), not both'],
      [['--shard', '1/3', '--group', 'g', '--group-concurrency', '2'], '--group-concurrency 2 is fewer than the 3 shards of the group'],
      [['--shard', '1/3', '--group', 'g', '--group-max-credits', '10', '--api', 'versioned'], '--group-max-credits: the versioned API reports no credits'],
    ];
    for (const [flags, message] of cases) {
      const r = await dsbenchHere(['run', suite, '--db', db, ...flags]);
      expect(r.code, flags.join(' ')).toBe(ExitCode.usage);
      expect(r.stderr).toContain(message);
    }
  });
});
