import { setFlagsFromString } from 'node:v8';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { planTooLarge } from '../config/suite-size.js';
import { loadSuite } from '../config/load-suite.js';
import { parseDuration } from '../config/duration.js';
import { connectionFor } from '../config/credentials.js';
import { boundTargets } from '../config/resume-targets.js';
import { targetsFrom } from '../config/targets.js';
import type { ResolvedSuite } from '../config/resolve-suite.js';
import type { RunningEmulator } from '../emulator/index.js';
import { RunGrading } from '../grade/run-grading.js';
import { DsbenchError, UsageError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import { defaultReporter, REPORTERS, type ReporterName } from '../runner/reporters/index.js';
import { executeRun, type RunResult, type RunTarget } from '../runner/run.js';
import { parseShard, type Shard } from '../runner/shard.js';
import { writeRunJunit } from '../report/junit.js';
import { pushRunMetrics } from '../report/push-metrics.js';
import { formatThresholds, runThresholdResults, thresholdsExitCode } from '../report/thresholds.js';
import { mostSevere } from '../model/verdict.js';
import type { GradeStore } from '../model/grading.js';
import { formatGradingSummary, gradingSummary, openStore, SqliteGradeStore } from '../store/index.js';
import { failingItems } from '../store/failing-items.js';
import { findRun, runTargets, type RunRecord } from '../store/queries.js';
import { API_FLAVOURS, DEFAULT_API, transportSettings, type GlobalArgs, pathOption } from './global-options.js';
import { formatFailingItems, formatRunSummary, MAX_FAILING_LISTED } from './run-summary.js';
import { formatQuality, runQuality } from '../report/quality.js';
import { onStopSignal } from './signals.js';
import { commandUsage } from './command-usage.js';
import { continueLater, interruptionNotes } from './run-notes.js';
import { checkShardFlags, resolveShardFlags } from './run-shard.js';
import { onlySubset, planHasAny, rerunOf, resumedSubset, runToResume } from './run-subset.js';
import { expectedCredits, refuseUnmeasuredBudget } from './run-budget.js';
import { dryRun } from './run-plan.js';
import { checkPushUrl, PUSH_METRICS_OPTION, tellPush } from './push-metrics.js';
import type { CommandContext } from './io.js';
import type { GateArgs } from './compare.js';
import { BASELINE_OPTIONS, baselineExitCode, compareWithBaseline, comparisonText, fixBaselineRef, runEndedAsNight } from './run-baseline.js';
import { compareJson } from '../report/compare/compare-json.js';
import { fetchRunTraces, TRACE_OPTIONS, traceSelectionOf, type TraceArgs } from './run-trace.js';
import type Database from 'better-sqlite3';

interface RunArgs extends GlobalArgs, GateArgs, TraceArgs {
  baseline?: string | undefined;
  suite?: string | undefined;
  target: string[];
  db: string;
  label?: string | undefined;
  concurrency?: number | undefined;
  searchConcurrency?: number | undefined;
  repeats?: number | undefined;
  resume?: string | undefined;
  cleanup: boolean;
  onQuota: 'stop' | 'wait' | 'continue';
  maxQuotaWait: string;
  grace: string;
  quiet: boolean;
  reporter?: ReporterName | undefined;
  emulatorTimeScale: number;
  emulatorNoise: 'none' | 'realistic';
  shard?: string | undefined;
  shardCount?: number | undefined;
  resumeOrStart?: boolean | undefined;
  group?: string | undefined;
  junit?: string | undefined;
  ifJudgeUnavailable: 'refuse' | 'continue';
  only: string[];
  rerunFailed?: string | undefined;
  maxCredits?: number | undefined;
  dryRun: boolean;
  pushMetrics?: string | undefined;
}

/**
 * SQLite's page cache for a run's connection. A run writes each item's rows once and reads back little, so
 * the default 16 MB only holds pages it will not touch again: filled once the database outgrows it, it made
 * a long run's peak 16 MB higher than a short one's, and a plan of 100,000 items filled it at once.
 */
const RUN_PAGE_CACHE_KIB = 2048;

/** Base of the embedded emulator's links (share URLs, answer citations): it lives only as long as the run. */
const EMBEDDED_EMULATOR_URL = 'http://emulator.invalid';

const positiveInt = (name: string, value: number | undefined) => {
  if (value !== undefined && !(Number.isInteger(value) && value > 0)) throw new UsageError(`--${name} must be a positive integer, got ${value}`);
};

export const runCommand = (cli: CommandContext): CommandModule<GlobalArgs, RunArgs> => ({
  ...commandUsage.run,
  builder: (y: Argv<GlobalArgs>) =>
    y
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
      .option('junit', { ...pathOption(cli), type: 'string', describe: 'Also write JUnit XML to FILE when the run ends: a test case per item, failures with the checks\' reasons' })
      .option('if-judge-unavailable', { choices: ['refuse', 'continue'] as const, default: 'refuse' as const, describe: 'When the suite grades and the judge fails its check before the run (gated LLM API, bad token, model not served): refuse to start, or run with its rubric and reference checks recorded as not graded' })
      .option('only', { type: 'string', array: true, default: [] as string[], describe: 'Run only the questions and searches with this id, or with tag:NAME (repeatable)' })
      .option('rerun-failed', { type: 'string', describe: 'A new run of the items that failed, erred or never ended in RUN (its id, label or latest), with its suite and targets' })
      .option('max-credits', { type: 'number', describe: 'Launch nothing that would take the run past N credits (recorded, plus what running items are expected to cost); legacy API only' })
      .option('dry-run', { type: 'boolean', default: false, describe: 'Print the plan and an estimate of credits and wall time from earlier runs, and ask nothing' })
      .options({ 'push-metrics': PUSH_METRICS_OPTION, ...TRACE_OPTIONS })
      .options(BASELINE_OPTIONS)
      .option('emulator-time-scale', { type: 'number', default: 0.05, describe: 'Pace of the embedded emulator (used with no endpoint): 0.05 makes a 30 s answer take 1.5 s' })
      .option('emulator-noise', { type: 'string', choices: ['none', 'realistic'], default: 'none', describe: "The embedded emulator's noise: realistic rehearses a real service's random errors, latency and flaky answers (docs/emulator.md)" })
      .check((argv) => {
        for (const name of ['concurrency', 'search-concurrency', 'repeats'] as const) positiveInt(name, argv[name] as number | undefined);
        if (!(Number(argv.emulatorTimeScale) > 0)) throw new UsageError('--emulator-time-scale must be positive');
        if (argv.suite === undefined && argv.resume === undefined && argv.rerunFailed === undefined) throw new UsageError('give a suite file, e.g. dsbench run suites/smoke.yaml');
        if (argv.rerunFailed !== undefined && argv.resume !== undefined) throw new UsageError('--rerun-failed starts a new run; resume that run with --resume alone');
        if (argv.maxCredits !== undefined && !(Number(argv.maxCredits) > 0)) throw new UsageError(`--max-credits must be a positive number of credits, got ${argv.maxCredits}`);
        if (argv.dryRun && argv.resume !== undefined) throw new UsageError("--dry-run plans a new run; a resumed run keeps its own plan (dsbench report RUN shows what is left of it)");
        if (argv.shard !== undefined && argv.shard !== 'auto') parseShard(String(argv.shard));
        checkPushUrl(argv.pushMetrics);
        if (argv.baseline !== undefined && argv.shard !== undefined) throw new UsageError('--baseline compares a whole night: compare the merged run (dsbench compare REF MERGED) instead of each --shard');
        if (argv.group !== undefined && argv.shard === undefined) throw new UsageError('--group names the shards of one run: give it with --shard INDEX/COUNT');
        if (argv.group !== undefined && argv.resume !== undefined) throw new UsageError('--group is fixed when a shard starts; resume it without --group');
        return true;
      }) as unknown as Argv<RunArgs>,
  handler: async (given: ArgumentsCamelCase<RunArgs>) => {
    checkShardFlags(given);
    const argv = resolveShardFlags(given, cli.env, (text) => cli.stderr.write(`dsbench: ${text}\n`));
    // A run keeps about 35 MB live whatever its length but allocates fast; V8's default lets the heap
    // grow to four times what is live between full collections (peak RSS 260 MB at 10,000 questions).
    // Growing by half keeps it flat under 200 MB for a few per cent more time in the collector.
    setFlagsFromString('--heap-growing-percent=50');
    // Under a run's allocation rate V8 doubles its young generation up to 32 MB (two 16 MB halves), a fifth
    // of a 100,000-question run's peak RSS. Its size can only be capped on node's command line
    // (--max-semi-space-size), but its growth can be stopped while running: it keeps the few MB start-up left.
    setFlagsFromString('--semi-space-growth-factor=1');
    const maxQuotaWaitMs = parseDuration(argv.maxQuotaWait, '--max-quota-wait');
    const graceMs = parseDuration(argv.grace, '--grace');
    const [transport, trace] = [transportSettings(argv), traceSelectionOf(argv)];
    // Flags and the suite are checked before the database is opened: a usage error leaves no file behind.
    let named = targetsFrom(argv.target, argv.endpoint, cli.env);
    const givenSuite = argv.suite !== undefined ? await loadSuite(argv.suite) : undefined;
    const tooLarge = givenSuite && planTooLarge(givenSuite.resolved, named?.length ?? 1, argv.repeats);
    if (tooLarge) throw new UsageError(tooLarge);
    const onlyGiven = givenSuite && argv.resume === undefined && argv.only.length > 0 ? onlySubset(givenSuite.resolved, argv.only) : undefined;
    if (givenSuite && argv.resume === undefined && argv.rerunFailed === undefined) refuseUnmeasuredBudget(argv.maxCredits, argv.api ?? givenSuite.resolved.questions[0]?.api ?? 'versioned');
    if (argv.dryRun) return dryRun(argv, givenSuite, named, onlyGiven, cli.stdout);
    const store = openStore(argv.db, { pageCacheKiB: RUN_PAGE_CACHE_KIB });
    let emulator: RunningEmulator | undefined;
    try {
      // A label names its newest run, as everywhere a run id goes.
      const resumeId = argv.resume !== undefined ? runToResume(store.db, argv.db, String(argv.resume)) : undefined;
      const previous = resumeId !== undefined ? store.recorder.loadRunInfo(resumeId) : undefined;
      if (resumeId !== undefined && !previous) throw new UsageError(`there is no run ${argv.resume} in ${argv.db}; list runs with dsbench runs --db ${argv.db}`);
      const rerun = argv.rerunFailed !== undefined ? await rerunOf(store, argv, givenSuite, onlyGiven) : undefined;
      const source = rerun?.source;
      const suite = rerun?.suite ?? givenSuite ?? (await loadSuite(previous?.info.suitePath as string));
      const earlier = previous ?? source;
      // A rerun of a run on the embedded emulator runs on a new one; any other run is bound to its own targets.
      if (earlier && !(source && source.targets.some((t) => t.emulated))) {
        const bound = boundTargets(earlier.runId, earlier.targets, argv.target, argv.endpoint, cli.env);
        for (const note of bound.notes) cli.stderr.write(`dsbench: ${note}\n`);
        named = bound.targets;
      } else if (source) named = undefined;
      const subset = previous ? resumedSubset(previous, (key) => store.recorder.hasItem(previous.runId, key), argv.only) : (rerun?.subset ?? onlyGiven);
      const api = earlier?.targets[0]?.api ?? argv.api ?? suite.resolved.questions[0]?.api ?? 'versioned';
      const maxCredits = argv.maxCredits ?? (previous?.info.options.maxCredits as number | undefined);
      refuseUnmeasuredBudget(maxCredits, api);
      if (source && !planHasAny(suite, source, subset)) {
        cli.stdout.write(`Run ${source.runId} has no item that failed, erred or did not end${argv.only.length > 0 ? ' among --only ' + argv.only.join(' ') : ''}: nothing to rerun.\n`);
        return;
      }
      const storedGroup = previous?.info.group;
      const shard: Shard | undefined =
        argv.shard !== undefined ? parseShard(argv.shard) : storedGroup && { index: storedGroup.shardIndex, count: storedGroup.shardCount };
      let targets: RunTarget[];
      if (named) {
        targets = named.map((t) => ({ ...t, emulated: false, timeScale: 1 }));
      } else {
        const { startEmulator } = await import('../emulator/index.js');
        // Some answers cite a missing line or another repository's file, so citation checks have something to find.
        // Its links name a fixed host, not its port of the moment, so the same suite gives the same answers.
        emulator = await startEmulator({ port: 0, timeScale: argv.emulatorTimeScale, publicUrl: EMBEDDED_EMULATOR_URL, agent: { badCitationRate: 0.1 }, noise: { profile: argv.emulatorNoise } });
        cli.stderr.write(`dsbench: no --endpoint, --target or SRC_ENDPOINT: running on the embedded emulator at ${emulator.url} (answers are emulated)\n`);
        targets = [{ name: 'emulator', connection: connectionFor(emulator.url, emulator.adminToken, {}), emulated: true, timeScale: argv.emulatorTimeScale }];
      }
      const night = { suiteName: suite.resolved.name, targets: targets.map((t) => t.name) };
      const baseline = argv.baseline !== undefined ? fixBaselineRef(store.db, argv.db, String(argv.baseline), night) : undefined;
      let runId: number | undefined;
      // A second signal exits at once; the run is marked aborted first (one synchronous commit) so the
      // database does not claim a run is still running in a process that is gone.
      const reporterName = argv.reporter ?? defaultReporter(argv.quiet, Boolean(cli.stderr.isTTY));
      const reporter = REPORTERS[reporterName](cli.stderr);
      // Signal notices go through the progress display like every other message, so they never land in the bar's line.
      const later = () => continueLater(runId, argv.db, targets.some((t) => t.emulated));
      const signals = handleSignals(graceMs, later, (text) => (reporter.onLog ? reporter.onLog(text) : cli.stderr.write(`dsbench: ${text}\n`)), () => {
        if (runId !== undefined) store.recorder.setRunStatus(runId, 'aborted', new Date().toISOString());
      });
      let result: RunResult;
      let grader: RunGrading | undefined;
      try {
        // Before the run is opened: a judge that cannot be configured is a usage error, and one that cannot
        // grade stops the run (or is said once), with nothing asked.
        grader = liveGrader(suite.resolved, new SqliteGradeStore(store.db), targets, transport, cli.env);
        await checkJudgeFirst(cli, grader, argv.ifJudgeUnavailable);
        result = await executeRun({
          grader,
          retry: transport.retry,
          requestTimeoutMs: transport.timeoutMs,
          maxReplyBytes: transport.maxReplyBytes,
          suite,
          targets,
          recorder: store.recorder,
          reporter,
          label: argv.label,
          api,
          concurrency: argv.concurrency,
          searchConcurrency: argv.searchConcurrency,
          repeats: argv.repeats ?? ((previous ?? source)?.info.options.repeats as number | undefined),
          subset,
          ...(maxCredits !== undefined && { budget: { maxCredits, expected: expectedCredits(store.db, suite, targets, previous?.runId) } }),
          onQuota: argv.onQuota,
          maxQuotaWaitMs,
          cleanup: argv.cleanup,
          resumeRunId: resumeId,
          shard,
          groupLabel: argv.group,
          onRunOpened: (id) => (runId = id),
          trace,
          stop: signals.stop,
          abort: signals.abort,
        });
      } finally {
        await grader?.close();
        signals.dispose();
      }
      // The embedded emulator, or a standalone one that said so in its replies.
      const emulated = runTargets(store.db, result.runId).some((t) => t.servedByEmulator);
      const grades = gradingSummary(store.db, result.runId);
      const quality = runQuality(store.db, result.runId);
      const run = findRun(store.db, result.runId)!;
      const thresholds = runThresholdResults(store.db, run);
      const runCode = mostSevere([result.exitCode, thresholdsExitCode(thresholds)]);
      const comparison = baseline && runEndedAsNight(result.exitCode) ? await compareWithBaseline(argv.db, run.id, baseline, argv) : undefined;
      const exitCode = comparison ? baselineExitCode(comparison, thresholdsExitCode(thresholds)) : runCode;
      const split = shard && run.split;
      const shardNote = split
        ? `Shard ${split.shardIndex}/${split.shardCount} of run group ${split.groupLabel || '(no --group)'} (${split.groupId}); once every shard is done: dsbench merge SHARD.db... --into DB\n`
        : '';
      cli.stdout.write(
        argv.json
          ? `${JSON.stringify({ ...result, exitCode, ...(grades.length > 0 && { grades }), ...(thresholds.length > 0 && { thresholds }), ...(split && { split }), quality, db: store.path, emulated, ...(comparison && { comparison: compareJson(comparison.result) }) }, null, 2)}\n`
          : formatRunSummary({ ...result, exitCode: runCode }, store.path, emulated) +
            formatFailingItems(failingItems(store.db, run.id, MAX_FAILING_LISTED), run.id, store.path) +
            formatQuality(quality) +
            formatGradingSummary(grades) +
            formatThresholds(thresholds) +
            shardNote +
            interruptionNotes(result, argv.db, targets.some((t) => t.emulated), result.stoppedBy !== undefined ? ` --max-credits ${2 * (maxCredits ?? 0)}` : '') +
            (baseline ? comparisonText(baseline, comparison, runCode) : ''),
      );
      await runOutputs(cli, store.db, run, targets, argv);
      cli.exitCode = exitCode;
    } finally {
      store.close();
      await emulator?.stop();
    }
  },
});

/** What a run writes once it ended: the traces it kept (--trace-fetch), JUnit, the pushed metrics. */
async function runOutputs(cli: CommandContext, db: Database.Database, run: RunRecord, targets: RunTarget[], argv: RunArgs): Promise<void> {
  if (argv.traceFetch) await fetchRunTraces(db, argv.db, run.id, targets, argv, cli.stderr);
  if (argv.junit !== undefined) writeRunJunit(db, run, argv.junit);
  if (argv.pushMetrics !== undefined) tellPush(await pushRunMetrics(db, run, argv.pushMetrics), cli.stderr);
}

/** The grading of items as they end, when the suite asks for it (judge.during: run). */
function liveGrader(suite: ResolvedSuite, store: GradeStore, targets: RunTarget[], transport: ReturnType<typeof transportSettings>, env: NodeJS.ProcessEnv): RunGrading | undefined {
  if (suite.judge.during !== 'run') return undefined;
  return RunGrading.create({ suite, store, targets, env, retry: transport.retry, timeoutMs: transport.timeoutMs });
}

/**
 * Before the first question, when the suite grades as items end: checks the judge once. A judge that
 * cannot grade stops the run before it starts, or with `--if-judge-unavailable continue` is said once and
 * the run goes on, its judged checks recorded as not graded (never passed).
 */
async function checkJudgeFirst(cli: CommandContext, grader: RunGrading | undefined, policy: RunArgs['ifJudgeUnavailable']): Promise<void> {
  const failed = grader && (await grader.checkJudges());
  if (!grader || !failed) return;
  if (policy === 'refuse') throw new DsbenchError(`not starting: ${failed.message} (or give --if-judge-unavailable continue to run without the judge)`, failed.error.exitCode, { cause: failed.error });
  cli.stderr.write(`dsbench: ${failed.message}; running without the judge (--if-judge-unavailable continue): its checks are recorded as not graded\n`);
  grader.withoutJudge(failed.message);
}


/**
 * First SIGINT, SIGTERM or SIGHUP: launch nothing more, give running questions the grace period, then cancel
 * them. A second one exits at once: every state change is already committed, so the database stays consistent.
 */
function handleSignals(graceMs: number, later: () => string, notice: (text: string) => void, beforeForcedExit: () => void) {
  const stop = new AbortController();
  const abort = new AbortController();
  let grace: NodeJS.Timeout | undefined;
  const release = onStopSignal((signal) => {
    if (stop.signal.aborted) {
      try {
        beforeForcedExit();
      } catch {
        // Exiting matters more than the status; every observation is committed already.
      }
      notice(`second ${signal}: exiting now. ${later()}`);
      process.exit(ExitCode.aborted);
    }
    notice(
      `${signal}: launching nothing more; running questions have ${graceMs < 1000 ? `${graceMs} ms` : `${Math.round(graceMs / 1000)} s`} to finish, then are cancelled (again to exit at once). ` +
        later(),
    );
    stop.abort();
    grace = setTimeout(() => abort.abort(), graceMs);
  });
  return {
    stop: stop.signal,
    abort: abort.signal,
    dispose: () => {
      clearTimeout(grace);
      release();
    },
  };
}
