import type { RunResult } from '../runner/run.js';

/** A command that resumes the run as printed: with its database, so it works from any folder's defaults. */
export function resumeCommand(runId: number | undefined, db: string, extra = ''): string {
  return `npx dsbench run --resume ${runId ?? '<run id>'} --db ${/^[\w./-]+$/.test(db) ? db : JSON.stringify(db)}${extra}`;
}

/**
 * How to go on with an interrupted run: the resume command on a line of its own (a terminal of any width then
 * shows it whole, wrapped if need be, and it copies as it is), or, on the embedded emulator, that there is none.
 */
export function continueLater(runId: number | undefined, db: string, embedded: boolean, extra = ''): string {
  if (embedded) return 'This run is on the embedded emulator, which ends with this process: it cannot be resumed; run the suite again instead.';
  return `Continue later${extra.includes('--max-credits') ? ', with a higher cap (here twice this one),' : ''} with:\n  ${resumeCommand(runId, db, extra)}`;
}

/**
 * The end of a run's summary about interruptions: the items run again after dsbench stopped them when the run
 * was interrupted (asked again after our own cancel: never counted as asked twice), and for a run that did
 * not finish, how to continue it, repeated from the signal's notice.
 */
export function interruptionNotes(result: RunResult, db: string, embedded: boolean, extra = ''): string {
  const rerun = Object.entries(result.targets)
    .filter(([, t]) => t.rerunAfterInterruption.attempts > 0)
    .map(([name, t]) => {
      const { attempts, credits } = t.rerunAfterInterruption;
      return `  ${name}: ${attempts} attempt${attempts === 1 ? '' : 's'} stopped by dsbench, run again${credits === null ? '' : ` (their credits: ${credits})`}\n`;
    })
    .join('');
  return (
    (rerun ? `\nRun again after dsbench stopped them on an interruption (asked again after our own cancel, not asked twice; docs/restarts.md):\n${rerun}` : '') +
    (result.stoppedBy !== undefined ? `\nStopped by its budget: ${result.stoppedBy}.` : '') +
    (result.status === 'aborted' ? `\n${continueLater(result.runId, db, embedded, extra)}\n` : '')
  );
}
