// `run` keeps V8's young generation at the size start-up left it: V8 would otherwise double it up to 32 MB
// under a run's allocation rate (its cap, --max-semi-space-size, works only on node's command line).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareCli, type Cli } from '../helpers/cli.js';

let cli: Cli;
let dir: string;
let probe: string;
beforeAll(() => {
  cli = prepareCli();
  dir = mkdtempSync(path.join(tmpdir(), 'dsbench-run-memory-'));
  // Loaded into the CLI: once the command is done, allocates the way a run does (objects that survive a
  // few collections) and reports the young generation's size before and after.
  probe = path.join(dir, 'probe.mjs');
  writeFileSync(
    probe,
    `import v8 from 'node:v8';
const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
process.on('exit', () => {
  const before = young();
  let kept = [];
  for (let i = 0; i < 1e6; i++) { kept.push({ i, s: 'x' + i }); if (kept.length > 20000) kept = kept.slice(10000); }
  process.stderr.write('YOUNG ' + before + ' ' + young() + '\\n');
});
`,
  );
  writeFileSync(path.join(dir, 'suite.yaml'), 'name: tiny\nquestions:\n  - id: q1\n    question: "Where is the retry policy?"\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function youngGeneration(args: string[]): Promise<{ before: number; after: number }> {
  const { code, stderr } = await cli.run(args, { NODE_OPTIONS: `--import ${probe}` });
  expect(code, stderr).toBe(0);
  const [, before, after] = /YOUNG (\d+) (\d+)/.exec(stderr) ?? [];
  return { before: Number(before), after: Number(after) };
}

describe('dsbench run and the young generation', () => {
  it('does not let it grow: after a run, allocation leaves it at its size, below what another command reaches', async () => {
    const db = path.join(dir, 'run.db');
    const run = await youngGeneration(['run', path.join(dir, 'suite.yaml'), '--db', db, '--quiet', '--emulator-time-scale', '0.001']);
    expect(run.after).toBe(run.before);
    // The same allocation after a command that leaves V8 as it is grows it to V8's maximum (32 MB); without
    // the stop, a run (even this small one, with its emulator) reaches that maximum by itself.
    const runs = await youngGeneration(['runs', '--db', db]);
    expect(runs.after).toBeGreaterThan(runs.before);
    expect(run.after).toBeLessThan(runs.after);
  }, 60_000);
});
