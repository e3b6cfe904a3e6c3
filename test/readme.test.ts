// The README's own commands, as a newcomer types them after the quick start: every `npx dsbench` line of
// "Quick start" and "Reading results" runs (with --db pointing at a fresh database, and the embedded
// emulator sped up) and exits as the README says. A renamed flag or command fails here first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cli, ROOT, prepareCli } from './helpers/cli.js';

/** The `npx dsbench ...` lines of the sh blocks of one README section, comments removed, words split. */
function commandsOf(section: string): string[][] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`## ${section}\n`);
  expect(start, section).toBeGreaterThanOrEqual(0);
  const body = readme.slice(start, readme.indexOf('\n## ', start + 3));
  const lines = [...body.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n'));
  return lines
    .filter((l) => l.startsWith('npx dsbench '))
    .map((l) => l.replace(/\s+#.*$/, ''))
    .map((l) => [...l.slice('npx dsbench '.length).matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!));
}

let cli: Cli;
let dir: string;
let db: string;
const FAST = { DSBENCH_EMULATOR_TIME_SCALE: '0.001' };

beforeAll(async () => {
  cli = prepareCli();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsbench-readme-'));
  db = path.join(dir, 'dsbench.db');
  // What "Reading results" says to run first (twice), into the test's own database, sped up.
  const first = commandsOf('Reading results').filter((c) => c[0] === 'run');
  expect(first).toEqual([['run', 'suites/smoke.yaml', '--label', 'nightly']]);
  for (let i = 0; i < 2; i++) {
    const run = await cli.run([...first[0]!, '--db', db, '--reporter', 'quiet', '--emulator-time-scale', '0.02']);
    // On a loaded machine a sped-up answer may pass its scaled timeout: a failed check (1) still records the run.
    expect([0, 1], run.stderr).toContain(run.code);
  }
}, 120_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the README commands work as written', () => {
  // The runs are recorded once, above; every other command runs here.
  const commands = [...commandsOf('Quick start'), ...commandsOf('Reading results')].filter((c) => c[0] !== 'run');

  it('finds the commands', () => {
    expect(commands.length).toBeGreaterThanOrEqual(9);
  });

  it.each(commands.map((c) => [c.join(' '), c] as const))('npx dsbench %s', async (_, args) => {
    const offline = ['runs', 'report', 'compare'].includes(args[0]!);
    // view serves until interrupted: its server is tested in test/view/; here its command and flags.
    const given = args[0] === 'view' ? [...args, '--help'] : offline ? [...args, '--db', db] : args;
    const run = await cli.run(given, FAST);
    expect(run.stderr).not.toContain('internal error');
    expect(run.stderr).not.toContain('Unknown argument');
    // compare may fail a gate on two emulated runs (exit 1) or find too few pairs (8); anything else is wrong.
    expect(args[0] === 'compare' ? [0, 1, 8] : [0], `${args.join(' ')}: ${run.stderr}`).toContain(run.code);
  }, 60_000);
});

describe("the README's nightly flow works as written, in order", () => {
  const flow = commandsOf('Nightly use in CI');

  it('bless, run with a blessed baseline and --confirm, with a pooled window, history with --detect', () => {
    expect(flow.map((c) => c.slice(0, 2).join(' '))).toEqual(['run suites/smoke.yaml', 'baseline bless', 'run suites/smoke.yaml', 'run suites/smoke.yaml', 'report --history']);
    expect(flow.flat()).toEqual(expect.arrayContaining(['blessed:release', '--confirm', 'window:2', '--detect']));
  });

  it('runs each command against a fresh database, exiting as the README says', async () => {
    const nights = path.join(dir, 'nights.db');
    for (const args of flow) {
      const run = args[0] === 'run';
      const given = run ? [...args, '--db', nights, '--reporter', 'quiet', '--emulator-time-scale', '0.02'] : [...args, '--db', nights];
      const r = await cli.run(given, FAST);
      expect(r.stderr).not.toContain('internal error');
      // A run with --baseline exits with its verdict: two emulated nights may differ (1, 11) or pair too little (8).
      const allowed = args.includes('--baseline') ? [0, 1, 8, 11] : run ? [0, 1] : [0];
      expect(allowed, `${args.join(' ')}: ${r.stderr}`).toContain(r.code);
    }
  }, 240_000);
});

describe('the docs index', () => {
  it('links every page in docs/', () => {
    const index = fs.readFileSync(path.join(ROOT, 'docs/README.md'), 'utf8');
    const pages = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'README.md');
    expect(pages.filter((page) => !index.includes(`](${page})`))).toEqual([]);
  });
});
