import { ExitCode } from '../errors/exit-codes.js';

// Installed first by the binary (handle-signals.ts; runCli alone installs nothing), so SIGINT, SIGTERM and
// SIGHUP are handled from the first line of start-up to the last: by default a signal ends dsbench at once
// with exit code 4 (nothing is half-written: every change to the database is its own committed transaction).
// A command with work to wind down (a run, the emulator) takes the signals over while it does, and gives them
// back when done.

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

const handlers: Array<(signal: StopSignal) => void> = [];

function onSignal(signal: StopSignal): void {
  const handler = handlers.at(-1);
  if (handler) return handler(signal);
  process.stderr.write(`dsbench: ${signal}: aborted\n`);
  process.exit(ExitCode.aborted);
}

/** Makes stop signals end the process with exit code 4, or go to the command that took them over. */
export function handleStopSignals(): void {
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
}

/** While registered (until the returned function is called), stop signals go to `handler` instead of ending dsbench. */
export function onStopSignal(handler: (signal: StopSignal) => void): () => void {
  handlers.push(handler);
  return () => {
    const at = handlers.lastIndexOf(handler);
    if (at >= 0) handlers.splice(at, 1);
  };
}
