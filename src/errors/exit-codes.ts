/**
 * Process exit codes, one per failure class (k6 style). docs/exit-codes.md carries the same table
 * and says which outcome maps to which code.
 */
export const ExitCode = {
  ok: 0,
  expectationsFailed: 1,
  usage: 2,
  unreachable: 3,
  aborted: 4,
  internal: 5,
  /** The local database could not be used: disk full, read-only, not a database, newer schema, locked. */
  storage: 6,
  /** Another live process holds the run's lease. */
  runHeld: 7,
  /** A gate, history or report had nothing to judge: no pairs, too few pairs, no matching run. */
  nothingCompared: 8,
  /** A threshold of the suite (limits on the run's aggregate metrics) was crossed, or its metric not measured. */
  thresholdsFailed: 9,
  /** `run --max-credits`: the run stopped launching before its credits would pass the cap (resumable). */
  budgetExceeded: 10,
  /** A comparison's verdict is suspect: a gate near its limit, or a change a confirmation's budget could not settle. */
  suspect: 11,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
