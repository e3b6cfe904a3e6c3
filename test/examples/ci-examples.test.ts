// The CI examples and Kubernetes manifests of examples/ (docs/ci.md) and the README's nightly workflow, checked offline: each parses as YAML,
// has the shape its engine reads for the fields dsbench relies on, pins what it installs, and every dsbench
// command in it uses flags the command has (so a renamed flag fails here, not in a user's nightly).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dsbenchHere } from '../helpers/cli-here.js';
import { ROOT } from '../helpers/cli.js';

const read = (file: string) => readFileSync(path.join(ROOT, 'examples', file), 'utf8');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const Step = z.object({ name: z.string().optional(), uses: z.string().optional(), run: z.string().optional(), if: z.string().optional(), with: z.record(z.string(), z.unknown()).optional() });
const GitHubWorkflow = z.object({
  name: z.string(),
  on: z.object({ schedule: z.array(z.object({ cron: z.string().regex(/^(\S+ ){4}\S+$/) })) }).loose(),
  jobs: z.record(z.string(), z.object({ 'runs-on': z.string(), steps: z.array(Step) }).loose()),
}).loose();
const GitLabJob = z.object({
  image: z.string(),
  script: z.array(z.string()),
  cache: z.object({ key: z.string(), paths: z.array(z.string()), when: z.literal('always') }),
  artifacts: z.object({ when: z.literal('always'), paths: z.array(z.string()), reports: z.object({ junit: z.string() }) }).loose(),
}).loose();
const Container = z.object({ image: z.string(), args: z.array(z.string()), env: z.array(z.object({ name: z.string(), value: z.string().optional() }).loose()) }).loose();
const IndexedJobSpec = z.object({
  completionMode: z.literal('Indexed'),
  completions: z.number().int().positive(),
  parallelism: z.number().int().positive(),
  template: z.object({ spec: z.object({ restartPolicy: z.enum(['OnFailure', 'Never']), containers: z.array(Container).length(1) }).loose() }),
}).loose();
const Job = z.object({ apiVersion: z.literal('batch/v1'), kind: z.literal('Job'), metadata: z.object({ name: z.string() }), spec: IndexedJobSpec });
const CronJob = z.object({
  apiVersion: z.literal('batch/v1'),
  kind: z.literal('CronJob'),
  metadata: z.object({ name: z.string() }),
  spec: z.object({ schedule: z.string().regex(/^(\S+ ){4}\S+$/), concurrencyPolicy: z.literal('Forbid'), jobTemplate: z.object({ spec: IndexedJobSpec }) }).loose(),
});

/** Every dsbench command line of a text (continuation lines joined), as words. */
function dsbenchCommands(text: string): string[][] {
  const joined = text.replace(/\\\n\s*/g, ' ').replace(/>-\n/g, '');
  return [...joined.matchAll(/(?:npx )?\bdsbench ((?:run|report|compare|runs|merge|baseline)\b[^\n&|>;)"]*)/g)].map((m) => m[1]!.trim().split(/\s+/));
}

/** The flags of `words` missing from the help of the command they call. */
async function unknownFlags(words: string[]): Promise<string[]> {
  const command = (words[0] === 'runs' || words[0] === 'baseline') && words[1] && !words[1].startsWith('-') ? words.slice(0, 2) : words.slice(0, 1);
  const help = (await dsbenchHere([...command, '--help'])).stdout;
  return words.filter((w) => w.startsWith('--')).map((w) => w.split('=')[0]!).filter((flag) => !help.includes(`${flag} `) && !help.includes(`${flag}\n`));
}

describe('examples/ci/github-nightly.yml', () => {
  const text = read('ci/github-nightly.yml');
  const workflow = GitHubWorkflow.parse(parse(text));
  const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);

  it('pins every action to an exact version and saves the database it restored, whatever happened', () => {
    expect(steps.filter((s) => s.uses !== undefined && !/^[\w-]+\/[\w/-]+@v\d+\.\d+\.\d+$/.test(s.uses))).toEqual([]);
    const restore = steps.find((s) => s.uses?.startsWith('actions/cache/restore@'))!;
    const save = steps.find((s) => s.uses?.startsWith('actions/cache/save@'))!;
    expect(save.with?.path).toBe(restore.with?.path);
    expect(save.with?.key).toBe(restore.with?.key);
    expect(save.if).toBe('always()');
    expect(steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))?.if).toBe('always()');
    expect(steps.some((s) => s.run?.includes('$GITHUB_STEP_SUMMARY'))).toBe(true);
  });

  it('uses only flags dsbench has', async () => {
    const commands = dsbenchCommands(text);
    expect(commands.map((c) => c[0])).toEqual(expect.arrayContaining(['run', 'report', 'baseline', 'runs']));
    // Nights are judged against the nights that passed, a first one blessed to start from.
    expect(commands.map((c) => c.join(' '))).toEqual(expect.arrayContaining(['run bench/nightly.yaml --label nightly --reporter lines --junit results/junit.xml $baseline', 'baseline bless nightly --name start --force']));
    for (const command of commands) expect(await unknownFlags(command), command.join(' ')).toEqual([]);
    // The check itself finds a flag a command lacks.
    expect(await unknownFlags(['runs', 'prune', '--keep-last', '3', '--keep-newest', '3'])).toEqual(['--keep-newest']);
  });
});

describe("the README's nightly workflow", () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Nightly use in CI\n'), readme.indexOf('\n## ', readme.indexOf('## Nightly use in CI\n') + 3));
  const text = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
  const workflow = GitHubWorkflow.parse(parse(text));
  const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);

  it('judges each night against the nights that passed, with a second look, and saves the database whatever happened', async () => {
    const commands = dsbenchCommands(text);
    expect(commands.map((c) => c.join(' '))).toEqual(expect.arrayContaining(['run suites/nightly.yaml --label nightly --reporter lines $baseline', 'baseline bless nightly --name start --force']));
    expect(text).toContain("baseline='--baseline window:3 --confirm'");
    for (const command of commands) expect(await unknownFlags(command), command.join(' ')).toEqual([]);
    const save = steps.find((s) => s.uses?.startsWith('actions/cache/save@'))!;
    expect(save.with?.path).toBe(steps.find((s) => s.uses?.startsWith('actions/cache/restore@'))!.with?.path);
    expect(save.if).toBe('always()');
  });
});

describe('examples/ci/gitlab-ci.yml', () => {
  const text = read('ci/gitlab-ci.yml');
  const job = GitLabJob.parse((parse(text) as Record<string, unknown>)['dsbench-nightly']);

  it('pins its image, keeps the database in the cache on failure too and reports the JUnit the run writes', () => {
    expect(job.image).toMatch(/^node:\d+\.\d+\.\d+/);
    expect(job.cache.paths).toEqual(['results/dsbench.db']);
    expect(job.script.join('\n')).toContain(`--junit ${job.artifacts.reports.junit}`);
  });

  it('uses only flags dsbench has', async () => {
    for (const command of dsbenchCommands(text)) expect(await unknownFlags(command), command.join(' ')).toEqual([]);
  });
});

describe('examples/kubernetes', () => {
  const job = Job.parse(parseAllDocuments(read('kubernetes/indexed-job.yaml'))[0]!.toJS());
  const cron = CronJob.parse(parse(read('kubernetes/cronjob.yaml')));
  const container = job.spec.template.spec.containers[0]!;

  it('an Indexed Job whose shards read their index and count (JOB_COMPLETIONS = completions) and resume on restart', () => {
    expect(container.env.find((e) => e.name === 'JOB_COMPLETIONS')?.value).toBe(String(job.spec.completions));
    const args = container.args.join(' ');
    expect(args).toContain('--shard auto');
    expect(args).toContain('--resume-or-start');
    expect(args).toContain(`dsbench@${VERSION}`);
  });

  it('a CronJob that runs the same Job each night', () => {
    expect(cron.spec.jobTemplate.spec).toEqual(job.spec);
  });

  it('uses only flags dsbench has', async () => {
    const commands = dsbenchCommands(container.args.join(' '));
    expect(commands).toHaveLength(1);
    expect(await unknownFlags(commands[0]!)).toEqual([]);
  });
});
