import { connectionFor } from '../config/credentials.js';
import type { ResolvedSuite } from '../config/resolve-suite.js';
import type { NamedConnection } from '../config/targets.js';
import type { RunningEmulator } from '../emulator/index.js';
import { DsbenchError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import type { RunGrading } from '../grade/run-grading.js';
import type { GradeStore } from '../model/grading.js';
import { defaultReporter, REPORTERS, type ReporterName } from '../runner/reporters/index.js';
import { executeRun, type RunResult, type RunTarget } from '../runner/run.js';
import { SqliteGradeStore } from '../store/index.js';
import type { Store } from '../store/store.js';
import type { transportSettings } from './global-options.js';
import type { CommandContext } from './io.js';
import type { RunArgs } from './run-flags.js';
import { expectedCredits } from './run-budget.js';
import { continueLater } from './run-notes.js';
import type { RunInputs, RunPlan } from './run-start.js';
import { EMULATOR_TARGET } from './run-start.js';
import { onStopSignal } from './signals.js';

/** Base of the embedded emulator's links (share URLs, answer citations): it lives only as long as the run. */
const EMBEDDED_EMULATOR_URL = 'http://emulator.invalid';

/** The named targets, or the embedded emulator started for this run (stopped by the caller, after the run's last use of it). */
export async function startTargets(cli: CommandContext, argv: RunArgs, named: NamedConnection[] | undefined): Promise<{ targets: RunTarget[]; emulator?: RunningEmulator }> {
  if (named) return { targets: named.map((t) => ({ ...t, emulated: false, timeScale: 1 })) };
  const { startEmulator } = await import('../emulator/index.js');
  // Some answers cite a missing line or another repository's file, so citation checks have something to find.
  // Its links name a fixed host, not its port of the moment, so the same suite gives the same answers.
  const emulator = await startEmulator({ port: 0, timeScale: argv.emulatorTimeScale, publicUrl: EMBEDDED_EMULATOR_URL, agent: { badCitationRate: 0.1 }, noise: { profile: argv.emulatorNoise } });
  cli.stderr.write(`dsbench: no --endpoint, --target or SRC_ENDPOINT: running on the embedded emulator at ${emulator.url} (answers are emulated)\n`);
  return { emulator, targets: [{ name: EMULATOR_TARGET, connection: connectionFor(emulator.url, emulator.adminToken, {}), emulated: true, timeScale: argv.emulatorTimeScale }] };
}

/** The run itself, under the stop signals' handlers, with the live grader when the suite asks for one. */
export async function executeSuite(cli: CommandContext, argv: RunArgs, store: Store, plan: RunPlan, targets: RunTarget[], inputs: RunInputs, reporterName: ReporterName): Promise<RunResult> {
  const { suite, settings } = plan;
  let runId: number | undefined;
  const reporter = REPORTERS[reporterName](cli.stderr);
  // Signal notices go through the progress display like every other message, so they never land in the bar's line.
  const later = () => continueLater(runId, argv.db, targets.some((t) => t.emulated));
  // A second signal exits at once; the run is marked aborted first (one synchronous commit) so the
  // database does not claim a run is still running in a process that is gone.
  const signals = handleSignals(inputs.graceMs, later, (text) => reporter.log(text), () => {
    if (runId !== undefined) store.recorder.setRunStatus(runId, 'aborted', new Date().toISOString());
  });
  let grader: RunGrading | undefined;
  try {
    // Before the run is opened: a judge that cannot be configured is a usage error, and one that cannot
    // grade stops the run (or is said once), with nothing asked.
    grader = await liveGrader(suite.resolved, new SqliteGradeStore(store.db), targets, inputs.transport, cli.env);
    await checkJudgeFirst(cli, grader, argv.ifJudgeUnavailable);
    const { maxCredits, group } = settings;
    return await executeRun({
      grader,
      retry: inputs.transport.retry,
      requestTimeoutMs: inputs.transport.timeoutMs,
      maxReplyBytes: inputs.transport.maxReplyBytes,
      trace: inputs.trace,
      suite,
      targets,
      recorder: store.recorder,
      observers: [reporter],
      label: argv.label,
      api: settings.api,
      concurrency: settings.concurrency,
      searchConcurrency: argv.searchConcurrency,
      repeats: settings.repeats,
      subset: plan.subset,
      ...(maxCredits !== undefined && { budget: { maxCredits, expected: expectedCredits(store.db, suite, targets, plan.previous?.runId) } }),
      onQuota: argv.onQuota,
      maxQuotaWaitMs: inputs.maxQuotaWaitMs,
      cleanup: argv.cleanup,
      resumeRunId: plan.resumeId,
      shard: settings.shard,
      groupLabel: argv.group,
      groupLimits: group?.limits,
      onRunOpened: (id) => (runId = id),
      stop: signals.stop,
      abort: signals.abort,
    });
  } finally {
    await grader?.close();
    signals.dispose();
  }
}

export function reporterNameOf(cli: CommandContext, argv: RunArgs): ReporterName {
  return argv.reporter ?? defaultReporter(argv.quiet, Boolean(cli.stderr.isTTY));
}

/** The grading of items as they end, when the suite asks for it (judge.during: run); its code is loaded only then. */
async function liveGrader(suite: ResolvedSuite, store: GradeStore, targets: RunTarget[], transport: ReturnType<typeof transportSettings>, env: NodeJS.ProcessEnv): Promise<RunGrading | undefined> {
  if (suite.judge.during !== 'run') return undefined;
  const { RunGrading } = await import('../grade/run-grading.js');
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
