import type { Argv } from 'yargs';
import { UsageError } from '../errors/errors.js';
import { REPORTERS, type ReporterName } from '../runner/reporters/index.js';
import { parseShard } from '../runner/shard.js';
import type { RunFlags } from '../runner/run-settings.js';
import { API_FLAVOURS, DEFAULT_API, type GlobalArgs, pathOption } from './global-options.js';
import type { GateArgs } from './compare.js';
import type { CliIo } from './io.js';
import { checkPushUrl, PUSH_METRICS_OPTION } from './push-metrics.js';
import { BASELINE_OPTIONS, checkConfirmFlags } from './run-baseline.js';
import { checkNotify, NOTIFY_OPTIONS, type NotifyArgs } from './run-notify.js';
import { TRACE_OPTIONS, type TraceArgs } from './run-trace.js';

// `dsbench run`'s flags: their declarations and the checks that need nothing but the flags themselves.

export interface RunArgs extends GlobalArgs, GateArgs, RunFlags, NotifyArgs, TraceArgs {
  baseline?: string | undefined;
  confirm: boolean;
  confirmBudget: string;
  confirmAlpha: string;
  suite?: string | undefined;
  target: string[];
  db: string;
  label?: string | undefined;
  searchConcurrency?: number | undefined;
  resume?: string | undefined;
  cleanup: boolean;
  onQuota: 'stop' | 'wait' | 'continue';
  maxQuotaWait: string;
  grace: string;
  quiet: boolean;
  reporter?: ReporterName | undefined;
  emulatorTimeScale: number;
  emulatorNoise: 'none' | 'realistic';
  shardCount?: number | undefined;
  resumeOrStart?: boolean | undefined;
  group?: string | undefined;
  junit?: string | undefined;
  ifJudgeUnavailable: 'refuse' | 'continue';
  only: string[];
  rerunFailed?: string | undefined;
  dryRun: boolean;
  pushMetrics?: string | undefined;
}

const positiveInt = (name: string, value: number | undefined) => {
  if (value !== undefined && !(Number.isInteger(value) && value > 0)) throw new UsageError(`--${name} must be a positive integer, got ${value}`);
};

export function runFlags(cli: CliIo, y: Argv<GlobalArgs>): Argv<RunArgs> {
  return y
    .positional('suite', { ...pathOption(cli), type: 'string', describe: 'Suite file (YAML or JSON); with --resume, defaults to the run\'s own' })
    .option('target', { type: 'string', array: true, default: [] as string[], describe: 'NAME=URL of an instance (repeatable); token from DSBENCH_TOKEN_<NAME> or SRC_ACCESS_TOKEN' })
    .option('api', { choices: API_FLAVOURS, describe: `Deep Search API flavour (default: the suite's api, else ${DEFAULT_API}; a resumed run keeps its own)` })
    .option('db', { ...pathOption(cli), type: 'string', default: 'results/dsbench.db', describe: 'SQLite database to record into' })
    .option('label', { type: 'string', describe: 'A name for this run (e.g. nightly-2026-11-21)' })
    .option('concurrency', { type: 'number', describe: 'Conversations at once per target (default: the suite\'s)' })
    .option('search-concurrency', { type: 'number', describe: 'Searches at once per target (default: the suite\'s)' })
    .option('repeats', { type: 'number', describe: 'Repeats of every item (default: the suite\'s)' })
    .option('resume', { type: 'string', describe: 'Continue an interrupted run (its id, its label, or latest): finished items stay, running ones are re-polled, never asked again' })
    .option('cleanup', { type: 'boolean', default: false, describe: 'Delete the conversations the run created once they are recorded' })
    .option('on-quota', { choices: ['stop', 'wait', 'continue'] as const, default: 'stop' as const, describe: 'When a target reports quota or entitlement exhaustion' })
    .option('max-quota-wait', { type: 'string', default: '1h', describe: 'Longest wait for a quota reset with --on-quota wait' })
    .option('grace', { type: 'string', default: '30s', describe: 'After a first Ctrl-C/SIGTERM/SIGHUP, how long running questions may finish before they are cancelled' })
    .option('quiet', { type: 'boolean', default: false, describe: 'No progress display' })
    .option('reporter', { choices: Object.keys(REPORTERS) as ReporterName[], describe: 'Progress display (default: bar on a terminal, lines otherwise)' })
    .option('shard', { type: 'string', describe: 'Run only shard INDEX/COUNT of the plan (e.g. 2/4), for a CI matrix; dsbench merge joins the shards. auto: read it from JOB_COMPLETION_INDEX (Kubernetes) or CI_NODE_INDEX/CI_NODE_TOTAL (GitLab)' })
    .option('shard-count', { type: 'number', describe: 'With --shard auto on a Kubernetes Indexed Job: the count of shards (the Job\'s completions; or JOB_COMPLETIONS)' })
    .option('resume-or-start', { type: 'boolean', describe: 'With --shard and --group: resume this shard\'s run of the group if the database has one, else start it (a restarted pod asks nothing twice)' })
    .option('group', { type: 'string', describe: 'With --shard: a label shared by the shards of one run and by no other (e.g. the CI pipeline id)' })
    .option('group-concurrency', { type: 'number', describe: 'With --group: conversations at once per target for the whole group; each shard takes its share by its share of the plan\'s questions' })
    .option('group-max-credits', { type: 'number', describe: 'With --group: the credit cap of the whole group, each shard capped at its share by its share of the plan\'s questions; legacy API only' })
    .option('junit', { ...pathOption(cli), type: 'string', describe: 'Also write JUnit XML to FILE when the run ends: a test case per item, failures with the checks\' reasons' })
    .option('if-judge-unavailable', { choices: ['refuse', 'continue'] as const, default: 'refuse' as const, describe: 'When the suite grades and the judge fails its check before the run (gated LLM API, bad token, model not served): refuse to start, or run with its rubric and reference checks recorded as not graded' })
    .option('only', { type: 'string', array: true, default: [] as string[], describe: 'Run only the questions and searches with this id, or with tag:NAME (repeatable)' })
    .option('rerun-failed', { type: 'string', describe: 'A new run of the items that failed, erred or never ended in RUN (its id, label or latest), with its suite and targets' })
    .option('max-credits', { type: 'number', describe: 'Launch nothing that would take the run past N credits (recorded, plus what running items are expected to cost); legacy API only' })
    .option('dry-run', { type: 'boolean', default: false, describe: 'Print the plan and an estimate of credits and wall time from earlier runs, and ask nothing' })
    .options({ 'push-metrics': PUSH_METRICS_OPTION, ...TRACE_OPTIONS, ...BASELINE_OPTIONS, ...NOTIFY_OPTIONS })
    .option('emulator-time-scale', { type: 'number', default: 0.05, describe: 'Pace of the embedded emulator (used with no endpoint): 0.05 makes a 30 s answer take 1.5 s' })
    .option('emulator-noise', { type: 'string', choices: ['none', 'realistic'], default: 'none', describe: "The embedded emulator's noise: realistic rehearses a real service's random errors, latency and flaky answers (docs/emulator.md)" })
    .check((argv) => checkRunFlags(argv as unknown as RunArgs)) as unknown as Argv<RunArgs>;
}

/** Usage errors in the flags alone, before any file is read. */
function checkRunFlags(argv: RunArgs): true {
  for (const name of ['concurrency', 'searchConcurrency', 'repeats', 'groupConcurrency'] as const) positiveInt(name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`), argv[name]);
  if (!(Number(argv.emulatorTimeScale) > 0)) throw new UsageError('--emulator-time-scale must be positive');
  if (argv.suite === undefined && argv.resume === undefined && argv.rerunFailed === undefined) throw new UsageError('give a suite file, e.g. dsbench run suites/smoke.yaml');
  if (argv.rerunFailed !== undefined && argv.resume !== undefined) throw new UsageError('--rerun-failed starts a new run; resume that run with --resume alone');
  for (const [flag, value] of [['--max-credits', argv.maxCredits], ['--group-max-credits', argv.groupMaxCredits]] as const) {
    if (value !== undefined && !(Number(value) > 0)) throw new UsageError(`${flag} must be a positive number of credits, got ${value}`);
  }
  if (argv.dryRun && argv.resume !== undefined) throw new UsageError("--dry-run plans a new run; a resumed run keeps its own plan (dsbench report RUN shows what is left of it)");
  if (argv.shard !== undefined && argv.shard !== 'auto') parseShard(String(argv.shard));
  checkPushUrl(argv.pushMetrics);
  checkNotify(argv);
  if (argv.baseline !== undefined && argv.shard !== undefined) throw new UsageError('--baseline compares a whole night: compare the merged run (dsbench compare REF MERGED) instead of each --shard');
  checkConfirmFlags(argv);
  if (argv.group !== undefined && argv.shard === undefined) throw new UsageError('--group names the shards of one run: give it with --shard INDEX/COUNT');
  if (argv.group !== undefined && argv.resume !== undefined) throw new UsageError('--group is fixed when a shard starts; resume it without --group');
  checkGroupLimits(argv);
  return true;
}

/** `--group-*` are totals of a run group: they need `--group`, and replace the per-shard flags they share. */
function checkGroupLimits(argv: RunArgs): void {
  for (const [flag, value, own] of [['--group-concurrency', argv.groupConcurrency, '--concurrency'], ['--group-max-credits', argv.groupMaxCredits, '--max-credits']] as const) {
    if (value === undefined) continue;
    if (argv.group === undefined) throw new UsageError(`${flag} is a total for the shards of a run group: give it with --shard INDEX/COUNT and --group NAME (or use ${own} for one run)`);
    if (own === '--concurrency' ? argv.concurrency !== undefined : argv.maxCredits !== undefined) throw new UsageError(`give ${flag} (the group's total) or ${own} (each shard's own), not both`);
  }
}
