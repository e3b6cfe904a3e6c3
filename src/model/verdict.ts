import { exitCodeForStatus } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import type { ItemKind, ItemOutcome, ItemStatus } from './item.js';

// The one place where outcomes become exit codes: `run` (live and resumed), `runs` and `search` all ask
// here. docs/exit-codes.md carries the same table in words; change both together.

/** An item as the verdict sees it: its outcome, or its status while it has none. */
export type VerdictOutcome = ItemOutcome | Exclude<ItemStatus, 'done' | 'skipped'>;

/**
 * The exit code one item's outcome calls for, before expectations.
 * - A question that got a final state (completed, error, canceled) or was given up on (timeout) is
 *   judged by its expectations alone: a suite may expect an error or a timeout.
 * - A question whose request failed (client_error) is the instance's failure: unreachable.
 * - A search that completed or stopped at a limit the server reported is judged by its expectations; one
 *   that was cut, stalled, timed out or could not be decoded (truncated), or got no 2xx reply
 *   (http_error, by its status: 400/404/... usage, else unreachable) is not a pass; a query the server
 *   could not run (error) is the suite's to fix: usage.
 * - An item that never ran to its end (pending, running, skipped after a stop) means the run stopped: aborted.
 */
export function itemExitCode(kind: ItemKind, outcome: VerdictOutcome, httpStatus?: number | null): ExitCode {
  switch (outcome) {
    case 'completed':
    case 'canceled':
    case 'timeout':
    case 'complete':
    case 'limit_hit':
      return ExitCode.ok;
    case 'error':
      return kind === 'search' ? ExitCode.usage : ExitCode.ok;
    case 'client_error':
    case 'truncated':
      return ExitCode.unreachable;
    case 'http_error':
      return httpStatus === undefined || httpStatus === null ? ExitCode.unreachable : exitCodeForStatus(httpStatus);
    default:
      return ExitCode.aborted;
  }
}

const FAILURE_OUTCOMES: ReadonlySet<string> = new Set(['error', 'client_error', 'timeout', 'http_error', 'truncated']);

/** An outcome that is an error unless the suite expected it. */
export function isFailure(outcome: string): boolean {
  return FAILURE_OUTCOMES.has(outcome);
}

/**
 * How the progress display and the run summary both count an item that ended badly: an `error` unless the
 * suite expected it (its checks all passed, at least one), then an `expected` error; anything else counts as
 * neither. One definition, so the progress line and the summary never disagree.
 */
export function failureClass(outcome: VerdictOutcome, checks: { passed: number; failed: number }): 'error' | 'expected' | undefined {
  if (!isFailure(outcome)) return undefined;
  return checks.passed > 0 && checks.failed === 0 ? 'expected' : 'error';
}

/**
 * Most severe first: a bug makes the rest untrustworthy; an unreachable instance explains what follows it;
 * a stop explains skipped items (a budget's stop the items it left pending); then usage, then checks.
 */
const SEVERITY: readonly ExitCode[] = [
  ExitCode.internal,
  ExitCode.storage,
  ExitCode.unreachable,
  ExitCode.budgetExceeded,
  ExitCode.aborted,
  ExitCode.usage,
  ExitCode.thresholdsFailed,
  ExitCode.expectationsFailed,
  ExitCode.ok,
];

/** The most severe of several exit codes (ok when there are none). */
export function mostSevere(codes: Iterable<ExitCode>): ExitCode {
  const given = new Set(codes);
  return SEVERITY.find((code) => given.has(code)) ?? ExitCode.ok;
}

export interface VerdictInput {
  /** The run was stopped by a signal (or a crash): aborted whatever the items say. */
  signalled: boolean;
  /** Exit codes of targets stopped by their gate (unreachable, refused token, quota policy). */
  stops: readonly ExitCode[];
  /** Every item of the run, finished before an interruption or not. */
  items: Iterable<{ kind: ItemKind; outcome: VerdictOutcome; httpStatus?: number | null | undefined }>;
  failedChecks: number;
}

/** The run's exit code: the most severe class among its items, stops and checks. */
export function runExitCode(input: VerdictInput): ExitCode {
  if (input.signalled) return ExitCode.aborted;
  const codes = new Set<ExitCode>(input.stops);
  for (const item of input.items) codes.add(itemExitCode(item.kind, item.outcome, item.httpStatus));
  if (input.failedChecks > 0) codes.add(ExitCode.expectationsFailed);
  return mostSevere(codes);
}

const COMPARED_WORDS = new Map<number, string>([
  [ExitCode.ok, 'unchanged'],
  [ExitCode.expectationsFailed, 'regressed'],
  [ExitCode.suspect, 'suspect'],
  [ExitCode.nothingCompared, 'undecided'],
]);

/** The verdict of a comparison with a baseline in a word, from the exit code it decided (`run --baseline`, `confirm`). */
export function comparedVerdictWord(code: number): string {
  return COMPARED_WORDS.get(code) ?? verdictWord(code as ExitCode);
}

/** The verdict in a word, for `runs` and summaries. */
export function verdictWord(code: ExitCode): string {
  switch (code) {
    case ExitCode.ok:
      return 'passed';
    case ExitCode.expectationsFailed:
      return 'checks failed';
    case ExitCode.usage:
      return 'suite error';
    case ExitCode.unreachable:
      return 'unreachable';
    case ExitCode.aborted:
      return 'aborted';
    case ExitCode.budgetExceeded:
      return 'over budget';
    case ExitCode.thresholdsFailed:
      return 'thresholds failed';
    default:
      return `exit ${code}`;
  }
}
