// Shards 1..n of a suite, each run on its own deterministic emulator (same seed, as n CI machines would)
// and merged, give the run one machine gives: the same items in the same order, the same outcomes,
// turns, searches and expectation results; and compare treats the merged run like any other run.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runCompare } from '../../src/cli/compare.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { iterateSearches, runTargets, storedItems } from '../../src/store/index.js';
import { mergeShards } from '../../src/store/merge.js';
import { FAST, cleanup, corpusDir, emulator, runSuite, suite, target, tempDir } from '../runner/fixtures/harness.js';
import { dsbenchHere } from '../helpers/cli-here.js';

afterAll(cleanup);

// Concurrency 1: the emulator samples a repeat by how often its text was asked before, so the order in
// which one machine asks must not depend on timing.
const SUITE = `
name: sharded
defaults: { api: legacy, concurrency: 1, repeats: 2, poll: { strategy: fixed, interval: 1s } }
questions:
  - id: retry
    question: Where is the retryPolicy of fetch implemented?
    followups: [Which status codes does it retry?, How is backoffDelay computed?]
    expect: { contains: backoffDelay, state: completed }
  - id: parse
    question: Where is parseSuite defined?
    expect: { contains: parseSuite }
  - id: never
    question: Where is nothingLikeThis configured?
    expect: { contains: a-string-no-answer-has }
  - id: token-limit
    question: "[[token-limit]] Explain every function of the parser."
    expect: { state: error, errorCode: TOKEN_LIMIT_EXCEEDED }
  - id: internal
    question: "[[internal-error]] Where is the cache?"
  - id: sources
    question: How are sources listed?
    followups: [And follow-ups?]
    repeats: 3
    expect: { sourcesInclude: github.com/org/repo }
  - id: lone
    question: What does p-limit do?
    repeats: 1
searches:
  - id: retry-all
    query: retry count:all
    expect: { exhaustive: true, minCount: 1 }
  - id: none
    query: nothingLikeThisAnywhere count:all
    expect: { minCount: 1 }
`;

/** What a report reads of a run, without what differs between two runs of anything (ids, clocks, polls). */
function contents(file: string, runId: number) {
  const db = new Database(file, { readonly: true });
  try {
    const items = storedItems(db, runId);
    const turns = items.flatMap((i) => i.turns);
    const read = {
      items: items.map(({ itemKey, position, kind, target, suiteItemId, repeat, tags, itemStatus, outcome, message }) => ({ itemKey, position, kind, target, suiteItemId, repeat, tags, itemStatus, outcome, message })),
      turns: turns.map(({ itemKey, turn, text, state, errorCode, errorRawCode, errorMessage, clientError, title, answer, timeMillis, toolCalls, totalInputTokens, promptTokens, completionTokens, totalTokens, credits }) => ({
        itemKey, turn, text, state, errorCode, errorRawCode, errorMessage, clientError, title, answer, timeMillis, toolCalls, totalInputTokens, promptTokens, completionTokens, totalTokens, credits,
      })),
      sources: turns.map(({ itemKey, turn, sources }) => ({ itemKey, turn, sources })),
      followups: turns.map(({ itemKey, turn, suggestedFollowups }) => ({ itemKey, turn, suggestedFollowups })),
      searches: [...iterateSearches(db, runId)].map(({ itemKey, query, params, verdict, matchCount, counted, countedByType, repositories, files, exhaustive, skipped, alert, error }) => ({
        itemKey, query, params, verdict, matchCount, counted, countedByType, repositories, files, exhaustive, skipped, alert, error,
      })),
      expectations: items.flatMap((i) => i.expectations.map((e) => ({ itemKey: i.itemKey, ...e }))),
      targets: runTargets(db, runId).map(({ name, api, emulated }) => ({ name, api, emulated })),
    };
    // Answers link to the emulator that gave them: each machine's has its own port.
    return JSON.parse(JSON.stringify(read).replace(/http:\/\/127\.0\.0\.1:\d+/g, 'EMULATOR')) as typeof read;
  } finally {
    db.close();
  }
}

describe('shards merged', () => {
  it.each([2, 3, 4])('1..%i merged equal the unsharded run against the same deterministic emulator', async (count) => {
    const loaded = await suite(SUITE);
    const corpus = corpusDir();
    const options = { ...FAST, seed: 42, corpus: { dir: corpus } };
    const dir = tempDir();
    // Each machine runs its own embedded emulator: a target that names no instance, whatever its port.
    const machine = async () => [{ ...target({ name: 'main', emulator: await emulator(options) }), emulated: true }];
    const whole = await runSuite(loaded, await machine(), { dbPath: path.join(dir, 'whole.db') });
    whole.close();
    const shardFiles: string[] = [];
    for (let index = 1; index <= count; index++) {
      const file = path.join(dir, `shard-${index}.db`);
      const run = await runSuite(loaded, await machine(), { dbPath: file, shard: { index, count }, groupLabel: 'ci-1' });
      run.close();
      expect(run.result.status).toBe('completed');
      shardFiles.push(file);
    }
    // Into the database of the unsharded run, so compare can pair the two runs.
    const [merged] = mergeShards({ sources: shardFiles.reverse(), into: whole.dbPath, batchRows: 7 });
    expect(merged).toMatchObject({ shards: Array.from({ length: count }, (_, i) => i + 1), missing: [], partial: false, status: 'completed', alreadyMerged: false });

    const expected = contents(whole.dbPath, whole.result.runId);
    const actual = contents(whole.dbPath, merged!.runId);
    expect(actual.items).toHaveLength(18);
    expect(actual.items).toEqual(expected.items);
    expect(actual.turns).toEqual(expected.turns);
    expect(actual.sources).toEqual(expected.sources);
    expect(actual.followups).toEqual(expected.followups);
    expect(actual.searches).toEqual(expected.searches);
    expect(actual.expectations).toEqual(expected.expectations);
    expect(actual.targets).toEqual(expected.targets);
    // Not a vacuous equality: outcomes of several kinds and failed checks are there.
    expect(new Set(actual.items.map((i) => i.outcome))).toEqual(new Set(['completed', 'error', 'complete']));
    expect(actual.expectations.some((e) => !e.passed)).toBe(true);

    // compare pairs every item of the merged run with the unsharded one: nothing new fails.
    const out: string[] = [];
    const code = await runCompare(
      { baseline: String(whole.result.runId), candidate: String(merged!.runId), db: whole.dbPath, failOn: 'new-errors,pass-rate,search-verdicts', format: 'json' },
      { write: (t: string) => out.push(t) },
    );
    expect(code, out.join('')).toBe(ExitCode.ok);
    const { summary } = JSON.parse(out.join('')) as { summary: { questions: Record<string, number>; searches: Record<string, number>; stateChanges: Record<string, number> } };
    expect(summary.questions).toEqual({ paired: actual.turns.length, baselineOnly: 0, candidateOnly: 0 });
    expect(summary.searches).toEqual({ paired: 4, baselineOnly: 0, candidateOnly: 0 });
    expect(summary.stateChanges).toMatchObject({ same: actual.turns.length + 4, new_error: 0, fixed: 0, changed: 0 });
  }, 60_000);
});

describe('dsbench run --shard', () => {
  it.each([
    [['--shard', '0/4'], /--shard 0\/4: the shard index must be between 1 and 4/],
    [['--shard', '3'], /--shard must be INDEX\/COUNT/],
    [['--group', 'nightly-1'], /--group names the shards of one run: give it with --shard/],
  ])('refuses %j with a usage error (exit 2) before touching the database', async (flags, message) => {
    const db = path.join(tempDir(), 'never.db');
    const exit = await dsbenchHere(['run', 'suites/smoke.yaml', '--db', db, ...flags]);
    expect(exit.code).toBe(ExitCode.usage);
    expect(exit.stderr).toMatch(message);
  });

  it('says in --json which shard of which group it ran', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'tiny.yaml');
    writeFileSync(file, 'name: tiny\ndefaults: { api: legacy, timeout: 1h }\nquestions:\n  - { id: a, question: Where is pLimit defined? }\n  - { id: b, question: What does yargs parse? }\n');
    const exit = await dsbenchHere(['run', file, '--shard', '2/2', '--group', 'ci-9', '--db', path.join(dir, 's.db'), '--json', '--quiet', '--emulator-time-scale', '0.01']);
    expect(exit.code, exit.stderr).toBe(ExitCode.ok);
    const result = JSON.parse(exit.stdout) as { split: Record<string, unknown>; targets: Record<string, { counts: Record<string, number> }> };
    expect(result.split).toMatchObject({ groupLabel: 'ci-9', shardIndex: 2, shardCount: 2, shards: [2], partial: false });
    expect(result.targets.emulator?.counts).toEqual({ completed: 1 });
  }, 30_000);

  it('resumes a shard as that shard, and refuses another --shard', async () => {
    const loaded = await suite(SUITE);
    const e = await emulator({ ...FAST, corpus: { dir: corpusDir() } });
    const dbPath = path.join(tempDir(), 'shard.db');
    const first = await runSuite(loaded, [target({ name: 'main', emulator: e })], { dbPath, shard: { index: 2, count: 3 }, groupLabel: 'g' });
    first.close();
    const resume = (shard: { index: number; count: number } | undefined) =>
      runSuite(loaded, [target({ name: 'main', emulator: e })], { dbPath, shard, resumeRunId: first.result.runId });
    await expect(resume({ index: 1, count: 3 })).rejects.toThrow(/run 1 is shard 2\/3 of a split run; resume it with --shard 2\/3/);
    await expect(resume(undefined)).rejects.toThrow(/run 1 is shard 2\/3/);
    // Completed: nothing to resume, but the shard check came first and passed.
    await expect(resume({ index: 2, count: 3 })).rejects.toThrow(/run 1 completed; there is nothing to resume/);
  }, 30_000);
});
