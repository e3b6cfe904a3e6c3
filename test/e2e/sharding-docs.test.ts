// The CI example of docs/sharding.md, run for real: its dsbench commands, taken from the workflow in the
// document (so the document cannot drift from what works), for two nights of a 3-job matrix on the
// embedded emulator, in a folder of their own. What CI does around them (artifacts, cache) is files here.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { prepareCli, ROOT, type Cli, type Run } from '../helpers/cli.js';
import { cleanup, tempDir } from '../runner/fixtures/harness.js';

interface Step {
  name?: string;
  run?: string;
}
interface Workflow {
  jobs: { shard: { strategy: { matrix: { shard: number[] } }; steps: Step[] }; merge: { steps: Step[] } };
}

const doc = readFileSync(path.join(ROOT, 'docs/sharding.md'), 'utf8');
const workflow = parse(/```yaml\n(# \.github\/workflows\/nightly-bench-sharded\.yml[\s\S]*?)```/.exec(doc)![1]!) as Workflow;

// A small suite in place of suites/nightly.yaml: a few questions, one with follow-ups and repeats, one
// failing check, one search (in one repository: the whole corpus costs seconds of CPU), so the shards are
// uneven and the report and gate have something to judge. Polls 10 s apart in the emulator's time (100 ms
// of real time at the pace below): each poll is a request the emulator answers on the cores its searches need.
const SUITE = `name: nightly
defaults: { api: legacy, concurrency: 2, timeout: 1h, poll: { strategy: fixed, interval: 10s } }
questions:
  - id: retry
    question: Where is RetryHandler implemented in undici?
    followups: [Which status codes does it retry?]
    repeats: 2
    expect: { state: completed }
  - id: pool
    question: How does undici's Pool pick a connection?
  - id: zod
    question: How does zod report a union error?
    expect: { contains: a-string-no-answer-has }
  - id: yaml
    question: How does the yaml package keep comments?
searches:
  - id: fetch
    query: "repo:npm/undici$ fetch count:all"
`;

/** The dsbench command lines of a step, with the workflow's expressions filled in and the output redirection dropped. */
function commands(step: Step, vars: Record<string, string>): string[][] {
  return (step.run ?? '')
    .split('\n')
    .filter((line) => line.includes('npx dsbench') && !line.includes('$('))
    .map((line) => {
      const filled = line.replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, name: string) => {
        if (!(name in vars)) throw new Error(`the example uses \${{ ${name} }}, which this test does not know`);
        return vars[name]!;
      });
      const words = filled.slice(filled.indexOf('npx dsbench') + 'npx dsbench'.length).split('>>')[0]!.trim().split(/\s+/);
      return words;
    });
}

function stepRunning(steps: Step[], command: string): Step {
  const step = steps.find((s) => s.run?.includes(`npx dsbench ${command}`));
  if (!step) throw new Error(`the example has no step running dsbench ${command}`);
  return step;
}

let cli: Cli;
beforeAll(() => {
  cli = prepareCli();
});
afterAll(async () => {
  await cleanup();
});

describe('docs/sharding.md: the GitHub Actions example', () => {
  it('runs the matrix, merges, reports and gates, night after night', async () => {
    const matrix = workflow.jobs.shard.strategy.matrix.shard;
    expect(matrix.length).toBeGreaterThan(1);
    const total = String(matrix.length);
    const ci = tempDir('dsbench-ci-');
    const cache = path.join(ci, 'cache');
    mkdirSync(cache);
    const runOf = (args: string[], cwd: string): Promise<Run> => cli.run(args, {}, cwd);

    for (const night of ['1001', '1002']) {
      // The shard jobs: each in its own checkout, uploading its database.
      const artifacts = path.join(ci, `artifacts-${night}`);
      mkdirSync(artifacts);
      // The matrix's jobs run at the same time, as on CI.
      await Promise.all(
        matrix.map(async (shard) => {
          const job = path.join(ci, `night-${night}-shard-${shard}`);
          mkdirSync(path.join(job, 'suites'), { recursive: true });
          writeFileSync(path.join(job, 'suites/nightly.yaml'), SUITE);
          const vars = { 'matrix.shard': String(shard), 'strategy.job-total': total, 'github.run_id': night };
          const [run] = commands(stepRunning(workflow.jobs.shard.steps, 'run'), vars);
          // Faster than the default pace of the embedded emulator; the rest is the example's command.
          const exit = await runOf([...run!, '--emulator-time-scale', '0.01'], job);
          // continue-on-error: 1 (a check failed) is judged after the merge.
          expect([ExitCode.ok, ExitCode.expectationsFailed], exit.stderr).toContain(exit.code);
          copyFileSync(path.join(job, `shard-${shard}.db`), path.join(artifacts, `shard-${shard}.db`));
        }),
      );

      // The merge job: a fresh checkout with the cache restored and the artifacts downloaded into shards/.
      const job = path.join(ci, `night-${night}-merge`);
      mkdirSync(path.join(job, 'results'), { recursive: true });
      mkdirSync(path.join(job, 'shards'));
      for (const file of readdirSync(artifacts)) copyFileSync(path.join(artifacts, file), path.join(job, 'shards', file));
      if (night !== '1001') copyFileSync(path.join(cache, 'dsbench.db'), path.join(job, 'results/dsbench.db'));
      const steps = workflow.jobs.merge.steps;
      const vars = { 'github.run_id': night };
      const [merge] = commands(stepRunning(steps, 'merge'), vars);
      const glob = merge!.findIndex((w) => w.includes('*'));
      const expanded = [...merge!.slice(0, glob), ...matrix.map((s) => `shards/shard-${s}.db`), ...merge!.slice(glob + 1)];
      const merged = await runOf(expanded, job);
      expect(merged.code, merged.stderr).toBe(ExitCode.ok);
      expect(merged.stdout).toMatch(new RegExp(`group ${night} \\(\\w+\\): shards ${matrix.join(', ')} of ${total} merged into run \\d+ .*, 6 items, completed`));
      if (night === '1002') {
        // A repeated step (a re-run of the merge job) changes nothing.
        const again = await runOf(expanded, job);
        expect(again.code, again.stderr).toBe(ExitCode.ok);
        expect(again.stdout).toMatch(/already merged as run/);
      }

      const [report] = commands(stepRunning(steps, 'report'), vars);
      const reported = await runOf(report!, job);
      expect(reported.code, reported.stderr).toBe(ExitCode.ok);
      expect(reported.stdout).toMatch(/items: 6, questions asked: 7, searches: 1/);

      // The example counts the nightlies with dsbench runs --json and jq; the database says the same.
      const results = new Database(path.join(job, 'results/dsbench.db'), { readonly: true });
      const nightlies = results.prepare(`SELECT id FROM runs WHERE label = 'nightly'`).all();
      results.close();
      const compare = commands(stepRunning(steps, 'compare'), vars).find((c) => c[0] === 'compare')!;
      if (nightlies.length < 2) {
        // The example's first-night branch: nothing to compare with yet.
        expect(night).toBe('1001');
      } else {
        const gated = await runOf(compare, job);
        // The same deterministic emulator both nights: nothing regressed, the gate passes.
        expect(gated.code, gated.stdout + gated.stderr).toBe(ExitCode.ok);
        expect(gated.stdout).toMatch(/Paired 7 question turns and 1 searches .*only in the baseline: 0, only in the candidate: 0/);
        expect(gated.stdout).toMatch(/New errors: 0/);
      }
      copyFileSync(path.join(job, 'results/dsbench.db'), path.join(cache, 'dsbench.db'));
    }

    // A lost shard job: merge refuses to judge the night on part of the suite (exit 2), naming what is missing.
    const lost = await runOf(['merge', 'shards/shard-1.db', '--into', 'results/partial.db'], path.join(ci, 'night-1002-merge'));
    expect(lost.code).toBe(ExitCode.usage);
    expect(lost.stderr).toMatch(new RegExp(`shards 2, 3, 4 of 4 of --group 1002 are missing.*--allow-partial`));

    const db = new Database(path.join(cache, 'dsbench.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT group_label, shard_count, partial, status FROM runs ORDER BY id').all()).toEqual([
        { group_label: '1001', shard_count: matrix.length, partial: 0, status: 'completed' },
        { group_label: '1002', shard_count: matrix.length, partial: 0, status: 'completed' },
      ]);
    } finally {
      db.close();
    }
  }, 180_000);
});
