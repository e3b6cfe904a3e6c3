import type Database from 'better-sqlite3';
import { UsageError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import { compareRuns } from '../report/compare/compare.js';
import type { CompareResult } from '../report/compare/compare-result.js';
import type { SecondLookHint } from '../report/compare/gates.js';
import { noRunToPool, resolveRun } from '../report/open.js';
import { passedRunsBefore, runTargets } from '../store/queries.js';
import { parseConfirmBudget } from './confirm-run.js';
import { parseConfirmAlpha } from './confirm.js';
import { GATE_OPTIONS, type GateArgs, bootstrapFrom, thresholdsFrom } from './compare.js';

// `dsbench run SUITE --baseline REF`: the run, then its comparison with REF, whose verdict is the exit code.

/** `run`'s --baseline and the gate flags its comparison is judged by (compare's). */
export const BASELINE_OPTIONS = {
  baseline: { type: 'string', describe: 'Then compare the run with this run (id, label, latest, blessed:<name>, window:K) under the compare gates below; the comparison decides the exit code' },
  confirm: { type: 'boolean', default: false, describe: 'With --baseline: the comparison is confirmed as dsbench confirm RUN --baseline REF confirms it (every gate at a strict first look, a second look when one is near); its verdict is the exit code' },
  'confirm-budget': { type: 'string', default: '10%', describe: "With --confirm: most items re-asked, a share of the run's items (10%) or a number (25)" },
  'confirm-alpha': { type: 'string', default: '1%', describe: 'With --confirm: false-alarm rate of a red verdict over both looks (all gates together)' },
  ...GATE_OPTIONS,
} as const;

/** `--confirm` needs a baseline to look at again; its budget and level are checked before anything is asked. */
export function checkConfirmFlags(argv: { baseline?: string | undefined; confirm?: boolean | undefined; confirmBudget: string; confirmAlpha: string }): void {
  if (!argv.confirm) return;
  if (argv.baseline === undefined) throw new UsageError('--confirm takes a second look at the comparison with --baseline REF: give --baseline (e.g. --baseline blessed:release)');
  parseConfirmBudget(argv.confirmBudget);
  parseConfirmAlpha(argv.confirmAlpha);
}

/** What `--baseline` names, fixed before the run starts. */
export interface BaselineRef {
  /** A run id, or `window:K` (resolved against the new run once it has ended). */
  run: string;
  /** As the user wrote it, for messages. */
  given: string;
  /** For `window:K`, the runs it would pool now (newest first): the run's own comes after, and is never among them. */
  pooled?: number[];
}

/**
 * Checks --baseline before anything is asked, and fixes a single run's reference now: `latest` or a label
 * then names the newest run before this one, never this run itself. `window:K` is resolved after the run;
 * now it only needs one run to pool, of the suite with the night's targets, whose verdict passed.
 */
export function fixBaselineRef(db: Database.Database, file: string, given: string, night: { suiteName: string; targets: string[] }): BaselineRef {
  const text = given.trim();
  if (text.startsWith('window:')) {
    if (!/^window:\d+$/.test(text) || Number(text.slice('window:'.length)) < 1) throw new UsageError(`--baseline ${text}: window takes a whole number of runs of at least 1, e.g. window:5`);
    const fits = (targets: string[]) => targets.length === night.targets.length && targets.every((t) => night.targets.includes(t));
    const pooled = passedRunsBefore(db, night.suiteName, undefined, Number(text.slice('window:'.length)), fits).map((r) => r.id);
    if (pooled.length === 0) {
      throw new UsageError(`${noRunToPool(db, file, `--baseline ${text}`, `suite ${night.suiteName}, targets ${night.targets.join(', ')}`, night.suiteName, undefined, fits)}. Nothing was asked`);
    }
    return { run: text, given: text, pooled };
  }
  return { run: String(resolveRun(db, file, text).id), given: text };
}

/**
 * `--confirm` re-asks on tonight's targets, which settles nothing if the baseline ran on another instance:
 * refused before anything is asked, as `dsbench confirm` refuses it after (the embedded emulator's URL is a
 * port of the moment and names no instance).
 */
export function refuseConfirmElsewhere(db: Database.Database, baseline: BaselineRef, targets: ReadonlyArray<{ name: string; url: string; emulated: boolean }>): void {
  for (const runId of baseline.pooled ?? [Number(baseline.run)]) refuseRunElsewhere(db, baseline, runId, targets);
}

function refuseRunElsewhere(db: Database.Database, baseline: BaselineRef, runId: number, targets: ReadonlyArray<{ name: string; url: string; emulated: boolean }>): void {
  const before = runTargets(db, runId);
  for (const t of targets) {
    const b = before.find((x) => x.name === t.name) ?? (targets.length === 1 && before.length === 1 ? before[0] : undefined);
    if (b && b.url !== t.url && !(t.emulated && b.emulated)) {
      throw new UsageError(
        `--confirm with --baseline ${baseline.given}: the baseline run ${runId} ran on ${b.name}=${b.emulated ? 'the embedded emulator' : b.url}, tonight's run on ${t.name}=${t.emulated ? 'the embedded emulator' : t.url}: ` +
          're-asking tonight\'s instance cannot tell a change of the service from a change of instance; nothing was asked. Name a baseline of the same endpoint, or leave out --confirm',
      );
    }
  }
}

export interface RunComparison {
  result: CompareResult;
  /** compare's exit code: 1 when a gate failed, 8 when it had nothing to judge, 11 when suspect, else 0. */
  exitCode: ExitCode;
}

/**
 * Compares run `runId` of `db` with `baseline` under compare's gates, writing compare's files into their
 * folder beside the database (compare-<baseline>-vs-<run>/). A second look (a confirmation) takes this
 * result and decides again; `secondLookHint` says how its verdict points to one.
 */
export async function compareWithBaseline(
  db: string,
  runId: number,
  baseline: BaselineRef,
  gates: GateArgs,
  secondLookHint: SecondLookHint = 'confirm',
  out?: string,
  textWidth?: number,
): Promise<RunComparison> {
  const result = await compareRuns({
    secondLookHint,
    textWidth,
    baseline: { db, run: baseline.run },
    candidate: { db, run: String(runId) },
    out,
    thresholds: thresholdsFrom(gates),
    bootstrap: bootstrapFrom(gates),
  });
  return { result, exitCode: comparisonExitCode(result) };
}

/** The comparison's verdict as an exit code: regressed 1, undecided 8, suspect 11, unchanged 0. */
export function comparisonExitCode(result: CompareResult): ExitCode {
  if (result.summary.failed) return ExitCode.expectationsFailed;
  if (result.nothingCompared) return ExitCode.nothingCompared;
  return result.verdict === 'suspect' ? ExitCode.suspect : ExitCode.ok;
}

/** With --baseline, the exit code: the suite's own thresholds (9) when crossed, else the comparison's. */
export function baselineExitCode(comparison: RunComparison, thresholds: ExitCode): ExitCode {
  return thresholds !== ExitCode.ok ? thresholds : comparison.exitCode;
}

/** The run's own codes that mean it did not end as a night: no comparison is made, and its code stands. */
const UNFINISHED: ReadonlySet<ExitCode> = new Set([ExitCode.unreachable, ExitCode.aborted, ExitCode.storage, ExitCode.runHeld, ExitCode.budgetExceeded, ExitCode.internal]);

export function runEndedAsNight(runExitCode: ExitCode): boolean {
  return !UNFINISHED.has(runExitCode);
}

const VERDICT_WORDS = new Map<ExitCode, string>([[ExitCode.ok, 'passed'], [ExitCode.expectationsFailed, 'FAILED'], [ExitCode.suspect, 'SUSPECT']]);

/** What the run's summary says of its comparison: the comparison itself, or why none was made. */
export function comparisonText(baseline: BaselineRef, comparison: RunComparison | undefined, runExitCode: ExitCode, secondLook = false): string {
  if (!comparison) return `\nNo comparison with --baseline ${baseline.given}: the run did not end as a night (exit ${runExitCode}), and its own exit code stands.\n`;
  const verdict = VERDICT_WORDS.get(comparison.exitCode) ?? 'NOTHING TO JUDGE';
  const decides = secondLook ? 'the confirmation below decides' : "the run's exit code";
  return `\nCompared with --baseline ${baseline.given}: ${verdict} (exit ${comparison.exitCode}, ${decides})\n\n${comparison.result.text}`;
}
