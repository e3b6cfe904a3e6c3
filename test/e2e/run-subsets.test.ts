// Subsets of a suite through the CLI: `run --only ID|tag:NAME` (repeatable) and `run --rerun-failed RUN`,
// a new run of what failed, linked to it (shown by `runs` and `report`).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { findRun, listRuns, storedItems } from '../../src/store/index.js';
import { prepareCli } from '../helpers/cli.js';
import { WIDE } from '../helpers/cli-here.js';
import { peek } from '../runner/fixtures/cli.js';
import { cleanup, corpusDir, emulator, FAST, tempDir, writeSuite } from '../runner/fixtures/harness.js';

const cli = prepareCli();
let e: RunningEmulator;
beforeAll(async () => {
  // Searches count over a few files, not all of node_modules (seconds of CPU each).
  e = await emulator({ ...FAST, corpus: { dir: corpusDir() } });
});
afterAll(cleanup);

const SUITE = `name: subsets
defaults: { poll: { strategy: fixed, interval: 50ms, min: 20ms } }
questions:
  - id: retry-policy
    question: Where is retryPolicy implemented?
    tags: [fast]
    expect: { contains: retryPolicy }
  - id: wrong
    question: Where is backoffDelay implemented?
    tags: [slow]
    expect: { contains: nothing-like-this }
  - id: broken
    question: "[[internal-error]] Where is parseSuite?"
  - id: plain
    question: Where is main implemented?
searches:
  - id: count
    query: retry
    tags: [fast]
`;

const keysOf = (dbPath: string, runId: number) =>
  peek(dbPath, (db) => storedItems(db, runId).map((i) => i.itemKey))!;

const run = (args: string[]) => cli.run(['run', ...args, '--reporter', 'quiet'], { SRC_ACCESS_TOKEN: e.adminToken });

describe.concurrent('subsets', () => {
  it('--only runs the questions and searches with those ids or tags, and a resume cannot change them', async ({ expect }) => {
    const dbPath = path.join(tempDir(), 'only.db');
    const done = await run([writeSuite(SUITE), '--endpoint', e.url, '--db', dbPath, '--only', 'plain', '--only', 'tag:fast', '--json']);
    expect(done.code, done.stderr).toBe(0);
    expect(keysOf(dbPath, 1)).toEqual(['default/question/retry-policy/0', 'default/question/plain/0', 'default/search/count/0']);
    // The search's verdict (complete, or limit_hit on a busy machine) is not what this is about.
    const { questions, searches } = JSON.parse(done.stdout).targets.default as { questions: { counts: object }; searches: { counts: Record<string, number> } };
    expect(questions.counts).toEqual({ completed: 2 });
    expect(Object.values(searches.counts)).toEqual([1]);
    const report = await cli.run(['report', '1', '--db', dbPath, '--out', path.join(tempDir(), 'r')]);
    expect(report.stdout).toContain('Part of the suite: --only plain --only tag:fast.');
    const resumed = await run(['--resume', '1', '--db', dbPath, '--only', 'wrong']);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain('--only is fixed when a run starts; resume run 1 without it (it keeps the items it planned)');
  }, 60_000);

  it.for([
    [['--only', 'retry-polcy'], '--only retry-polcy: suite subsets has no question or search with the id "retry-polcy"; did you mean retry-policy? (--only takes an id or tag:NAME)'],
    [['--only', 'fast'], '--only fast: suite subsets has no question or search with the id "fast"; did you mean tag:fast (a tag)?'],
    [['--only', 'tag:fest'], '--only tag:fest: no question or search of suite subsets has the tag "fest"; did you mean tag:fast?'],
    [['--only', 'tag:nightly'], '--only tag:nightly: no question or search of suite subsets has the tag "nightly"; its tags: fast, slow'],
  ] as const)('an unknown id or tag is a usage error with a suggestion, and no database is made: %j', async ([[flag, value], message], { expect }) => {
    const dbPath = path.join(tempDir(), 'bad.db');
    const refused = await run([writeSuite(SUITE), '--endpoint', e.url, '--db', dbPath, flag, value]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(message);
    expect(peek(dbPath, () => true)).toBeUndefined();
  });

  it('--rerun-failed starts a new run of the failed and erred items, on the same suite and targets, linked to the run; runs and report show the link', async ({ expect }) => {
    const dbPath = path.join(tempDir(), 'rerun.db');
    const suiteFile = writeSuite(SUITE);
    expect((await run([suiteFile, '--endpoint', e.url, '--db', dbPath, '--label', 'nightly'])).code).toBe(1);
    // No suite and no endpoint: both are the earlier run's.
    const rerun = await run(['--rerun-failed', 'nightly', '--db', dbPath, '--json']);
    expect(rerun.code, rerun.stderr).toBe(1);
    expect(JSON.parse(rerun.stdout).runId).toBe(2);
    expect(keysOf(dbPath, 2)).toEqual(['default/question/wrong/0', 'default/question/broken/0']);
    expect(peek(dbPath, (db) => findRun(db, 2))).toMatchObject({ rerunOf: 1 });

    const runs = await cli.run(['runs', '--db', dbPath], WIDE);
    expect(runs.stdout).toMatch(/rerun of\n/);
    expect(runs.stdout).toMatch(/\n\s*2 .* 1\n/);
    expect(JSON.parse((await cli.run(['runs', '--db', dbPath, '--json'])).stdout)[0]).toMatchObject({ id: 2, rerunOf: 1 });
    const report = await cli.run(['report', '2', '--db', dbPath, '--out', path.join(tempDir(), 'r')]);
    expect(report.stdout).toContain('A rerun of run 1: its items that failed, erred or did not end.');

    // Narrowed by --only; then a run with nothing failed has nothing to rerun, and no run is made.
    const narrowed = await run(['--rerun-failed', '1', '--db', dbPath, '--only', 'tag:slow']);
    expect(narrowed.code, narrowed.stderr).toBe(1);
    expect(keysOf(dbPath, 3)).toEqual(['default/question/wrong/0']);
    const clean = await run([suiteFile, '--endpoint', e.url, '--db', dbPath, '--only', 'plain']);
    expect(clean.code).toBe(0);
    const nothing = await run(['--rerun-failed', '4', '--db', dbPath]);
    expect(nothing.code, nothing.stderr).toBe(0);
    expect(nothing.stdout).toBe('Run 4 has no item that failed, erred or did not end: nothing to rerun.\n');
    expect(peek(dbPath, (db) => listRuns(db).length)).toBe(4);

    // Another instance, or a changed suite, is refused.
    const elsewhere = await run(['--rerun-failed', '1', '--db', dbPath, '--endpoint', 'http://127.0.0.1:9']);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain('names another instance');
    writeFileSync(suiteFile, `${SUITE}  - id: added\n    query: main\n`);
    const changed = await run(['--rerun-failed', '1', '--db', dbPath]);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain(`the suite ${suiteFile} changed since run 1: --rerun-failed reruns that run's items of the same suite`);
  }, 90_000);
});
