// The README's nightly flow (test/helpers/readme.ts): the commands of "Nightly use in CI", in order, against a
// fresh database with the embedded emulator sped up, each exiting as the README says.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareCli } from './helpers/cli.js';
import { commandsOf, FAST, runFlags } from './helpers/readme.js';

let dir: string | undefined;

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the README's nightly flow works as written, in order", () => {
  const flow = commandsOf('Nightly use in CI');

  it('bless, run with a blessed baseline and --confirm, with a pooled window, history with --detect', () => {
    expect(flow.map((c) => c.slice(0, 2).join(' '))).toEqual(['run suites/smoke.yaml', 'baseline bless', 'run suites/smoke.yaml', 'run suites/smoke.yaml', 'report --history']);
    expect(flow.flat()).toEqual(expect.arrayContaining(['blessed:release', '--confirm', 'window:2', '--detect']));
  });

  it('runs each command against a fresh database, exiting as the README says', async () => {
    const cli = prepareCli();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsbench-readme-nightly-'));
    const nights = path.join(dir, 'nights.db');
    for (const args of flow) {
      const run = args[0] === 'run';
      const r = await cli.run(run ? [...args, ...runFlags(nights)] : [...args, '--db', nights], FAST);
      expect(r.stderr).not.toContain('internal error');
      // A run with --baseline exits with its verdict: two emulated nights may differ (1, 11) or pair too little (8).
      // Any other command passes: the emulator's answers and searches do not depend on the machine's load.
      const allowed = args.includes('--baseline') ? [0, 1, 8, 11] : [0];
      expect(allowed, `${args.join(' ')}: ${r.stderr}`).toContain(r.code);
    }
  }, 240_000);
});
