import { DsbenchError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import type { RunStatus } from '../model/run.js';
import { emptyTargetTally } from '../model/tally.js';
import { runExitCode } from '../model/verdict.js';
import type { TargetRuntime } from './item-context.js';
import type { Recorder } from './recorder.js';
import type { RunResult } from './run-options.js';

/** How a run ended, for its verdict. */
export interface RunEnd {
  runId: number;
  recorder: Recorder;
  runtimes: Map<string, TargetRuntime>;
  /** Whether the run was stopped (a signal, a lost lease, a failed store or the budget). */
  stopped: boolean;
  /** The first storage failure of the run, once there is one. */
  storageFault: DsbenchError | undefined;
  /** Aborted (with its reason) once another process took the run over. */
  lost: AbortSignal;
  /** Why the budget stopped the run (`--max-credits`). */
  stoppedBy: string | undefined;
}

/**
 * The run's status and exit code, from what was recorded, set on the run; throws for a run whose store
 * failed or that another process took over.
 */
export function runVerdict(end: RunEnd): Pick<RunResult, 'runId' | 'status' | 'exitCode' | 'targets' | 'expectations' | 'stoppedBy'> {
  const { runId, recorder, runtimes, stoppedBy } = end;
  const fault = end.storageFault;
  if (fault) {
    try {
      // Resumable as any aborted run, when the database still takes this one small write.
      recorder.setRunStatus(runId, 'aborted', new Date().toISOString());
    } catch {
      // The run stays `running`; a resume takes it all the same.
    }
    throw new DsbenchError(
      `${fault.message}\nRun ${runId} stopped: nothing more was launched and running questions were cancelled on the server; ` +
        `once the database can be written, continue it with dsbench run --resume ${runId}.`,
      fault.exitCode,
      { cause: fault },
    );
  }
  // Taken over: the run, its status and its verdict are the other process's (exit 7), however far this one got.
  if (end.lost.aborted) throw end.lost.reason;
  // The verdict reads what was recorded, so a resumed run counts the items finished before its interruption.
  const tally = recorder.tally(runId);
  const targets = Object.fromEntries(
    [...runtimes].map(([name, r]) => [name, { ...(tally.targets[name] ?? emptyTargetTally()), ...(r.gate.stopped && { stopped: r.gate.stopped.reason }) }]),
  );
  const exitCode = runExitCode({
    signalled: end.stopped && stoppedBy === undefined,
    stops: [
      ...[...runtimes.values()].flatMap((r) => [...(r.gate.stopped ? [r.gate.stopped.exitCode] : []), ...r.failures]),
      ...(stoppedBy !== undefined ? [ExitCode.budgetExceeded] : []),
    ],
    items: tally.items,
    failedChecks: tally.checks.failed,
  });
  const status: RunStatus = end.stopped || exitCode === ExitCode.aborted ? 'aborted' : exitCode === ExitCode.unreachable ? 'failed' : 'completed';
  recorder.setRunStatus(runId, status, new Date().toISOString(), stoppedBy !== undefined ? 'budget' : undefined);
  return { runId, status, exitCode, targets, expectations: tally.checks, ...(stoppedBy !== undefined && { stoppedBy }) };
}
