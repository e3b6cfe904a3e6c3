import { parseDuration } from '../config/duration.js';
import { boundTargets } from '../config/resume-targets.js';
import { loadSuite, type LoadedSuite } from '../config/load-suite.js';
import { planTooLarge } from '../config/suite-size.js';
import { targetsFrom, type NamedConnection } from '../config/targets.js';
import { UsageError } from '../errors/errors.js';
import type { RunHeader } from '../model/run.js';
import type { Subset } from '../runner/plan.js';
import { resolveRunSettings, type RunSettings } from '../runner/run-settings.js';
import type { Store } from '../store/store.js';
import { transportSettings } from './global-options.js';
import { traceSelectionOf } from './run-trace.js';
import type { TraceSelection } from '../model/trace.js';
import type { CommandContext } from './io.js';
import type { RunArgs } from './run-flags.js';
import { onlySubset, planHasAny, rerunOf, resumedSubset, runToResume } from './run-subset.js';

// `dsbench run` before anything is asked: what the flags give (checked before the database is opened, so a
// usage error leaves no file behind), then the run it resumes or reruns, and its settings, resolved once.

/** The embedded emulator's one target. */
export const EMULATOR_TARGET = 'emulator';

export interface RunInputs {
  maxQuotaWaitMs: number;
  graceMs: number;
  transport: ReturnType<typeof transportSettings>;
  /** `--trace`: which items' requests the instance is asked to trace. */
  trace: TraceSelection | undefined;
  /** The targets the flags or environment name; undefined: the embedded emulator. */
  named: NamedConnection[] | undefined;
  givenSuite: LoadedSuite | undefined;
  onlyGiven: Subset | undefined;
  /** A new run's settings (no resume, no rerun): resolved here, before the database is opened. */
  settings: RunSettings | undefined;
}

export async function readRunInputs(cli: CommandContext, argv: RunArgs): Promise<RunInputs> {
  const maxQuotaWaitMs = parseDuration(argv.maxQuotaWait, '--max-quota-wait');
  const graceMs = parseDuration(argv.grace, '--grace');
  const transport = transportSettings(argv);
  const trace = traceSelectionOf(argv);
  const named = targetsFrom(argv.target, argv.endpoint, cli.env);
  const givenSuite = argv.suite !== undefined ? await loadSuite(argv.suite) : undefined;
  const tooLarge = givenSuite && planTooLarge(givenSuite.resolved, named?.length ?? 1, argv.repeats);
  if (tooLarge) throw new UsageError(tooLarge);
  const onlyGiven = givenSuite && argv.resume === undefined && argv.only.length > 0 ? onlySubset(givenSuite.resolved, argv.only) : undefined;
  const fresh = givenSuite && argv.resume === undefined && argv.rerunFailed === undefined;
  const settings = fresh ? resolveRunSettings(argv, givenSuite.resolved, named?.map((t) => t.name) ?? [EMULATOR_TARGET], {}, onlyGiven) : undefined;
  return { maxQuotaWaitMs, graceMs, transport, trace, named, givenSuite, onlyGiven, settings };
}

/** What the run is: its suite, targets, part of the plan and settings, with the run it resumes or reruns. */
export interface RunPlan {
  suite: LoadedSuite;
  named: NamedConnection[] | undefined;
  subset: Subset | undefined;
  settings: RunSettings;
  resumeId: number | undefined;
  previous: RunHeader | undefined;
  source: RunHeader | undefined;
}

/** The run to make; undefined (said on stdout) when a rerun has nothing to run. */
export async function planRun(cli: CommandContext, argv: RunArgs, store: Store, inputs: RunInputs): Promise<RunPlan | undefined> {
  // A label names its newest run, as everywhere a run id goes.
  const resumeId = argv.resume !== undefined ? runToResume(store.db, argv.db, String(argv.resume)) : undefined;
  const previous = resumeId !== undefined ? store.recorder.loadRunInfo(resumeId) : undefined;
  if (resumeId !== undefined && !previous) throw new UsageError(`there is no run ${argv.resume} in ${argv.db}; list runs with dsbench runs --db ${argv.db}`);
  const rerun = argv.rerunFailed !== undefined ? await rerunOf(store, argv, inputs.givenSuite, inputs.onlyGiven) : undefined;
  const source = rerun?.source;
  const suite = rerun?.suite ?? inputs.givenSuite ?? (await loadSuite(previous?.info.suitePath as string));
  const earlier = previous ?? source;
  let named = inputs.named;
  // A rerun of a run on the embedded emulator runs on a new one; any other run is bound to its own targets.
  if (earlier && !(source && source.targets.some((t) => t.emulated))) {
    const bound = boundTargets(earlier.runId, earlier.targets, argv.target, argv.endpoint, cli.env);
    for (const note of bound.notes) cli.stderr.write(`dsbench: ${note}\n`);
    named = bound.targets;
  } else if (source) named = undefined;
  const subset = previous ? resumedSubset(previous, (key) => store.recorder.hasItem(previous.runId, key), argv.only) : (rerun?.subset ?? inputs.onlyGiven);
  const settings = inputs.settings ?? resolveRunSettings(argv, suite.resolved, named?.map((t) => t.name) ?? [EMULATOR_TARGET], { resumed: previous, rerunOf: source }, subset);
  if (source && !planHasAny(suite, source, subset)) {
    cli.stdout.write(`Run ${source.runId} has no item that failed, erred or did not end${argv.only.length > 0 ? ' among --only ' + argv.only.join(' ') : ''}: nothing to rerun.\n`);
    return undefined;
  }
  return { suite, named, subset, settings, resumeId, previous, source };
}
