// The README's commands that read the results database (test/helpers/readme.ts), as a newcomer types them after
// the quick start: the runs "Reading results" says to record, into a fresh database with the embedded emulator
// sped up, then every `runs`, `report` and `compare` line of "Quick start" and "Reading results", each exiting as
// the README says. A renamed flag or command fails here first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cli, prepareCli } from './helpers/cli.js';
import { commandsOf, FAST, readingCommands, runFlags } from './helpers/readme.js';

let cli: Cli;
let dir: string;
let db: string;

beforeAll(async () => {
  cli = prepareCli();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsbench-readme-'));
  db = path.join(dir, 'dsbench.db');
  // What "Reading results" says to run first (twice), into the test's own database, sped up.
  const first = commandsOf('Reading results').filter((c) => c[0] === 'run');
  expect(first).toEqual([['run', 'suites/smoke.yaml', '--label', 'nightly']]);
  for (let i = 0; i < 2; i++) {
    const run = await cli.run([...first[0]!, ...runFlags(db)]);
    // The emulator's answers and searches do not depend on the machine's load (docs/emulator.md), so the run passes.
    expect(run.code, run.stderr).toBe(0);
  }
}, 120_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the README commands that read the results work as written', () => {
  const { offline } = readingCommands();

  it('finds them', () => {
    expect(offline.map((c) => c[0])).toEqual(expect.arrayContaining(['runs', 'report', 'compare']));
  });

  it.each(offline.map((c) => [c.join(' '), c] as const))('npx dsbench %s', async (_, args) => {
    const run = await cli.run([...args, '--db', db], FAST);
    expect(run.stderr).not.toContain('internal error');
    expect(run.stderr).not.toContain('Unknown argument');
    // compare may fail a gate on two emulated runs (exit 1) or find too few pairs (8); anything else is wrong.
    expect(args[0] === 'compare' ? [0, 1, 8] : [0], `${args.join(' ')}: ${run.stderr}`).toContain(run.code);
  }, 60_000);
});
