import { renderText } from '../report/document.js';
import { textWidthFor } from './text-width.js';
import type { RunTarget } from '../runner/run.js';
import { REPORTERS, type ReporterName } from '../runner/reporters/index.js';
import { UsageError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import { bootstrapFrom, thresholdsFrom } from './compare.js';
import { type ConfirmResult, confirmRun, parseConfirmBudget } from './confirm-run.js';
import { confirmExitCode, parseConfirmAlpha, writeConfirmation } from './confirm.js';
import type { CommandContext } from './io.js';
import type { RunArgs } from './run-flags.js';
import type { BaselineRef, RunComparison } from './run-baseline.js';
import type { transportSettings } from './global-options.js';
import { onStopSignal } from './signals.js';

// `run --baseline REF --confirm`: a comparison that compared something is confirmed as
// `dsbench confirm RUN --baseline REF` confirms it, on the targets the run just used (the embedded emulator
// is still up).

export interface Confirmed {
  result: ConfirmResult;
  exitCode: ExitCode;
  text: string;
}

/**
 * Whether the comparison is confirmed: it compared something. An unchanged comparison is too: the
 * confirmation's first look tests every gate by its own test (counting each item, a baseline's extra repeats
 * too), which can be red, or near enough to call for a second look, where the plain gates are not.
 */
export function needsSecondLook(comparison: RunComparison | undefined): comparison is RunComparison {
  return comparison !== undefined && comparison.exitCode !== ExitCode.nothingCompared;
}

/**
 * The second look, or why there is none: a confirmation refused after the run (its suite file edited
 * meanwhile, say) leaves the run and its comparison as recorded, and the comparison's code stands.
 */
export async function secondLook(cli: CommandContext, argv: RunArgs, run: { id: number; targets: readonly RunTarget[]; baseline: BaselineRef }, transport: ReturnType<typeof transportSettings>, reporterName: ReporterName): Promise<Confirmed | { refused: string }> {
  try {
    return await confirmAfterRun(cli, argv, run, transport, reporterName);
  } catch (error) {
    if (error instanceof UsageError) return { refused: error.message };
    throw error;
  }
}

export async function confirmAfterRun(
  cli: CommandContext,
  argv: RunArgs,
  run: { id: number; targets: readonly RunTarget[]; baseline: BaselineRef },
  transport: ReturnType<typeof transportSettings>,
  reporterName: ReporterName,
): Promise<Confirmed> {
  const stop = new AbortController();
  const abort = new AbortController();
  const release = onStopSignal((signal) => {
    cli.stderr.write(`dsbench: ${signal}: launching nothing more and cancelling the confirmation; the run and its comparison are recorded\n`);
    stop.abort();
    abort.abort();
  });
  try {
    const result = await confirmRun({
      db: argv.db,
      run: String(run.id),
      baseline: { db: argv.db, run: run.baseline.run },
      budget: parseConfirmBudget(argv.confirmBudget),
      alpha: parseConfirmAlpha(argv.confirmAlpha),
      thresholds: thresholdsFrom(argv),
      bootstrap: bootstrapFrom(argv),
      // The run's own targets, as it just asked them: the same instance, whatever the environment says now.
      bind: () => [...run.targets],
      reporter: REPORTERS[reporterName](cli.stderr),
      stop: stop.signal,
      abort: abort.signal,
      retry: transport.retry,
      requestTimeoutMs: transport.timeoutMs,
    });
    const blocks = writeConfirmation(result, argv.db, undefined);
    return { result, exitCode: confirmExitCode(result), text: `\nSecond look (--confirm):\n${renderText(blocks, textWidthFor(cli))}` };
  } finally {
    release();
  }
}
