/** Process exit codes, one per failure class (k6 style). The README carries the same table. */
export const ExitCode = {
  ok: 0,
  expectationsFailed: 1,
  usage: 2,
  unreachable: 3,
  aborted: 4,
  internal: 5,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
