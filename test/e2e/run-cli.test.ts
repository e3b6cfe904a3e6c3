// `dsbench run` as a user runs it: the --json result, usage errors with helpful messages, resume guards,
// and a token that never reaches stdout, stderr or the database. Most run the command in this process
// (fast); a few run a real process for its exit code and output.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { listRuns, runTargets } from '../../src/store/index.js';
import { dsbenchHere } from '../helpers/cli-here.js';
import { peek, runChildCli } from '../runner/fixtures/cli.js';
import { FAST, cleanup, corpusDir, emulator, op, tempDir, writeSuite } from '../runner/fixtures/harness.js';

const SUITE = `name: cli
defaults: { api: legacy, poll: { strategy: fixed, interval: 1s } }
questions:
  - id: good
    question: Where is retryPolicy implemented?
    followups: [Who calls it?]
    expect: { contains: retryPolicy }
  - id: bad
    question: Where is backoffDelay implemented?
    expect: { contains: nothing-like-this }
  - id: failing
    question: "[[internal-error]] Where is parseSuite?"
`;

const SECRET = 'sgp_cli_secret_token_0123456789abcdef';
let e: RunningEmulator;
let outputs: Array<{ code: number | null; stdout: string; stderr: string }> = [];
const dbFiles: string[] = [];

/** Runs dsbench as a child process and keeps what it printed, for the secrets check at the end. */
async function dsbench(args: string[], env: Record<string, string> = {}) {
  const exit = await runChildCli(args, env);
  outputs.push(exit);
  return exit;
}

/** The same in this process. */
async function here(args: string[], env: Record<string, string> = {}) {
  const exit = await dsbenchHere(args, env);
  outputs.push(exit);
  return exit;
}

function dbPath(name = 'runs.db'): string {
  const file = path.join(tempDir(), name);
  dbFiles.push(file);
  return file;
}

beforeAll(async () => {
  e = await emulator({
    ...FAST,
    // Searches count over a few files, not all of node_modules (seconds of CPU each).
    corpus: { dir: corpusDir() },
    users: [{ id: 1, username: 'admin', tokens: [{ token: SECRET, scopes: ['externalapi:read', 'externalapi:write'] }] }],
  });
});

afterAll(async () => {
  await cleanup();
  outputs = [];
});

describe('--json', () => {
  it('prints the run id, counts by state per target, credits and expectations; exit code 1 on a failed expectation', async () => {
    const db = dbPath();
    const exit = await here(['run', writeSuite(SUITE), '--endpoint', e.url, '--db', db, '--json', '--quiet', '--label', 'nightly-1'], { SRC_ACCESS_TOKEN: SECRET });
    expect(exit.code, exit.stderr).toBe(1);
    const result = JSON.parse(exit.stdout);
    expect(result).toMatchObject({
      runId: 1,
      status: 'completed',
      exitCode: 1,
      expectations: { passed: 1, failed: 1 },
      db,
      // A standalone emulator says so in its replies: the run is marked emulated, yet stays resumable.
      emulated: true,
      wallMs: expect.any(Number),
    });
    expect(result.targets).toMatchObject({
      default: { counts: { completed: 2, error: 1 }, credits: expect.any(Number), passed: 1, failed: 1, questions: { counts: { completed: 2, error: 1 }, expected: {}, passed: 1, failed: 1 } },
    });
    expect(result.targets.default.credits).toBeGreaterThan(0);
    const check = new Database(db, { readonly: true });
    try {
      const runs = listRuns(check);
      expect(runs.map(({ id, label, suiteName, status }) => ({ id, label, suiteName, status }))).toEqual([{ id: 1, label: 'nightly-1', suiteName: 'cli', status: 'completed' }]);
      expect(runs[0]!.credits).toBe(result.targets.default.credits);
      expect(runTargets(check, 1).map(({ emulated, servedByEmulator }) => ({ emulated, servedByEmulator }))).toEqual([{ emulated: false, servedByEmulator: true }]);
    } finally {
      check.close();
    }
    const runs = await dsbench(['runs', '--db', db, '--json']);
    expect(JSON.parse(runs.stdout)).toMatchObject([{ id: 1, emulated: true }]);
    const out = path.join(tempDir(), 'report');
    const report = await dsbench(['report', '--db', db, '--out', out, '--format', 'md']);
    expect(report.code, report.stderr).toBe(0);
    expect(readFileSync(path.join(out, 'report.md'), 'utf8')).toMatch(/\(legacy API, emulated\)/);
  });

  it('a suite of searches only, against a standalone emulator, is marked emulated too', async () => {
    const db = dbPath('searches.db');
    const suite = 'name: searches-only\nsearches:\n  - id: count-retry\n    query: retryPolicy count:all\n';
    const exit = await here(['run', writeSuite(suite), '--endpoint', e.url, '--db', db, '--json', '--quiet'], { SRC_ACCESS_TOKEN: SECRET });
    expect(exit.code, exit.stderr).toBe(0);
    expect(JSON.parse(exit.stdout)).toMatchObject({ status: 'completed', emulated: true });
    const check = new Database(db, { readonly: true });
    try {
      expect(runTargets(check, 1).map(({ emulated, servedByEmulator }) => ({ emulated, servedByEmulator }))).toEqual([{ emulated: false, servedByEmulator: true }]);
    } finally {
      check.close();
    }
  });

  it('without --json, a summary table on stdout', async () => {
    const junit = path.join(tempDir(), 'ci', 'junit.xml');
    const exit = await here(['run', writeSuite(SUITE), '--endpoint', e.url, '--db', dbPath(), '--reporter', 'lines', '--junit', junit], { SRC_ACCESS_TOKEN: SECRET });
    expect(exit.code).toBe(1);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuites name="dsbench run 1: cli" tests="3" failures="1" errors="0"/);
    expect(xml).toContain('<failure type="expectation" message="contains: ');
    expect(exit.stdout).toMatch(/^\nRun 1 completed in \d+\.\d s \(emulated instance\); recorded in .+runs\.db\n/);
    expect(exit.stdout).toMatch(/\nQuestions\ntarget\s+completed\s+error\s+credits\s+checks ok\s+checks failed\ndefault\s+2\s+1\s+\d+\s+1\s+1\n/);
    expect(exit.stdout).toContain('Errors: 1. Checks: 1 passed, 1 failed. Exit code 1.');
    expect(exit.stderr).toContain('dsbench: run 1: 3 items on default');
  });
});

describe('--api', () => {
  it('its help says the suite decides unless the flag is given, and the suite\'s api is used with no flag', async () => {
    const help = await dsbench(['run', '--help']);
    expect(help.stdout).toMatch(/--api\s+Deep Search API flavour \(default: the suite's api, else versioned;/);
    expect(help.stdout).not.toMatch(/--api[^\n]*\[default: "versioned"\]/);
    // The suite says legacy; no --api is given.
    const exit = await here(['run', writeSuite(SUITE), '--endpoint', e.url, '--db', dbPath(), '--json'], { SRC_ACCESS_TOKEN: SECRET });
    const result = JSON.parse(exit.stdout) as { runId: number; db: string };
    const check = new Database(result.db, { readonly: true });
    try {
      expect(runTargets(check, result.runId).map((t) => t.api)).toEqual(['legacy']);
    } finally {
      check.close();
    }
  });
});

describe('usage errors: exit code 2 with a helpful message', () => {
  const suite = () => writeSuite(SUITE);
  it.each([
    [['--concurency', '2'], /Unknown argument: concurency/],
    [['--concurrency', '0'], /--concurrency must be a positive integer, got 0/],
    [['--repeats', '1.5'], /--repeats must be a positive integer, got 1.5/],
    [['--target', 'prod'], /--target "prod": write NAME=URL/],
    [['--target', 'a=http://127.0.0.1:1', '--target', 'a=http://127.0.0.1:2'], /--target a is given twice/],
    [['--target', 'a=ftp://example.com'], /--target a: "ftp:\/\/example.com" must use http or https/],
    [['--target', 'a=http://127.0.0.1:1', '--endpoint', 'http://127.0.0.1:2'], /give either --endpoint or --target NAME=URL, not both/],
    [['--on-quota', 'later'], /Invalid values:[\s\S]*on-quota/],
    [['--grace', 'soon'], /--grace: "soon" is not a positive duration/],
    [['--max-quota-wait', 'forever'], /--max-quota-wait: "forever" is not a positive duration/],
  ])('%j', async (flags, message) => {
    const db = dbPath();
    const exit = await here(['run', suite(), '--db', db, ...flags]);
    expect(exit.code, exit.stderr).toBe(2);
    expect(exit.stderr).toMatch(message);
    expect(exit.stdout).toBe('');
    // A usage error opens no database.
    expect(existsSync(db)).toBe(false);
  });

  it('a missing suite argument', async () => {
    const exit = await here(['run', '--db', dbPath()]);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toContain('give a suite file, e.g. dsbench run suites/smoke.yaml');
  });

  it('a suite file that does not exist', async () => {
    const exit = await here(['run', 'no/such/suite.yaml', '--db', dbPath()]);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toContain('suite file not found: no/such/suite.yaml');
  });

  it('a bad suite file: every problem with file:line:col and the field path', async () => {
    const file = writeSuite('name: bad\nquestions:\n  - id: q1\n    question: hi\n    expcet: {}\n  - id: q1\n    question: again\n', 'bad.yaml');
    const db = dbPath();
    const exit = await here(['run', file, '--db', db, '--endpoint', e.url]);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toContain(`dsbench: ${file}:5:5: questions[0].expcet: unknown field "expcet" (did you mean "expect"?)\n`);
    expect(exit.stderr).toContain(`${file}:6:9: questions[1].id: duplicate id "q1", first used by questions[0].id at line 3`);
    expect(existsSync(db)).toBe(false);
  });
});

describe('resume guards', () => {
  it('an unknown run id, a completed run and a changed suite are usage errors naming what is wrong', async () => {
    const db = dbPath();
    const file = writeSuite(SUITE);
    const env = { SRC_ACCESS_TOKEN: SECRET };
    const first = await here(['run', file, '--endpoint', e.url, '--db', db, '--quiet', '--label', 'nightly'], env);
    expect(first.code).toBe(1);
    const asked = e.counters()[op('legacy', 'create')];

    const unknown = await here(['run', '--resume', '42', '--endpoint', e.url, '--db', db], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`dsbench: no run 42 in ${db}`);

    // A label is taken wherever a run id is.
    const completed = await here(['run', '--resume', 'nightly', '--endpoint', e.url, '--db', db], env);
    expect(completed.code).toBe(2);
    expect(completed.stderr).toContain('dsbench: run 1 completed; there is nothing to resume');

    // A completed run made resumable again, as no command does: the raw file.
    const writable = new Database(db);
    writable.prepare("UPDATE runs SET status = 'aborted'").run();
    writable.close();
    writeFileSync(file, `${SUITE}  - id: added\n    question: Where is openStore?\n`);
    const changed = await here(['run', '--resume', '1', '--endpoint', e.url, '--db', db], env);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain(`dsbench: the suite ${file} changed since run 1 started`);
    expect(e.counters()[op('legacy', 'create')]).toBe(asked);
  });

  it('a run on the embedded emulator cannot be resumed, with a clear reason', async () => {
    const db = dbPath();
    const file = writeSuite('name: emulated\nquestions:\n  - id: q\n    question: Where is retryPolicy implemented?\n');
    const first = await here(['run', file, '--db', db, '--quiet', '--emulator-time-scale', '0.0001']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('running on the embedded emulator');
    expect(first.stdout).toContain('(emulated instance)');
    expect(peek(db, (check) => runTargets(check, 1)[0]?.emulated)).toBe(true);
    // The run made resumable, as no command does with a completed one: the raw file.
    const writable = new Database(db);
    writable.prepare("UPDATE runs SET status = 'aborted'").run();
    writable.close();
    const again = await here(['run', '--resume', '1', '--db', db]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('this run used the embedded emulator, which ended with its process, so its conversations cannot be re-polled; start a new run');
  });
});

describe.concurrent('from a real process', () => {
  it('an unknown flag, from a real process', async ({ expect }) => {
    const exit = await dsbench(['run', writeSuite(SUITE), '--db', dbPath(), '--concurency', '2']);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toBe('dsbench: Unknown argument: concurency\n--concurency: did you mean --concurrency?\nRun dsbench --help (or dsbench <command> --help) for usage.\n');
  });

  it('a refused token stops the target with exit code 3 and is not printed', async ({ expect }) => {
    const wrong = 'sgp_wrong_secret_abcdef0123456789';
    const db = dbPath();
    const exit = await dsbench(['run', writeSuite(SUITE), '--target', `prod=${e.url}`, '--db', db, '--json'], { DSBENCH_TOKEN_PROD: wrong });
    expect(exit.code).toBe(3);
    expect(JSON.parse(exit.stdout).targets.prod).toMatchObject({ counts: { skipped: 3 }, stopped: expect.stringContaining('HTTP 401') });
    expect(exit.stderr).toContain(`target prod (${e.url})`);
    for (const text of [exit.stdout, exit.stderr, ...databaseBytes(db)]) expect(text).not.toContain(wrong);
  });
});

describe('secrets', () => {
  it('the token never appears in anything printed or in the database files', () => {
    expect(outputs.length).toBeGreaterThan(5);
    for (const exit of outputs) {
      expect(exit.stdout).not.toContain(SECRET);
      expect(exit.stderr).not.toContain(SECRET);
    }
    const files = dbFiles.filter(existsSync);
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) for (const bytes of databaseBytes(file)) expect(bytes).not.toContain(SECRET);
  });
});

/** The database and its WAL and shared-memory files, as text. */
function databaseBytes(file: string): string[] {
  const dir = path.dirname(file);
  return readdirSync(dir)
    .filter((name) => name.startsWith(path.basename(file)))
    .map((name) => readFileSync(path.join(dir, name)).toString('latin1'));
}
