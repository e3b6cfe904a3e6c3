import { z } from 'zod';
import type { Corpus } from '../corpus/corpus.js';
import type { StreamFaultInjector } from './faults.js';

const millis = z.number().int().positive();

/** The stream's pacing and limits, plain data; what it searches and its clock are StreamDeps. */
export const StreamHandlerOptionsSchema = z.object({
  /** A pending matches batch is sent after this long (the first batch goes at once). */
  flushIntervalMs: millis.default(200),
  /** ...or as soon as it grows past this many characters. */
  flushBytes: z.number().int().positive().default(32 * 1024),
  /** Longest silence before a keep-alive progress event. */
  progressIntervalMs: millis.default(5000),
  /** Real ms per emulated ms of the two intervals above (the emulator's time scale). */
  timeScale: z.number().positive().default(1),
  /** Result limit of a query without count:. */
  defaultLimit: z.number().int().positive().default(10_000),
  /** Timeout of a query without timeout:, in search time (below). */
  defaultTimeoutMs: millis.default(20_000),
  /**
   * Search time one repository or file examined costs (ms; a file takes about 0.3 ms on a typical machine):
   * a search's timeout is a budget of work, so a busy machine gets the same results later, never a timeout.
   */
  searchStepMs: z.number().positive().default(0.3),
});
export type StreamHandlerOptions = z.input<typeof StreamHandlerOptionsSchema>;
export type ResolvedStreamOptions = z.output<typeof StreamHandlerOptionsSchema>;

/** The objects and functions the stream handler works with, passed apart from its options. */
export interface StreamDeps {
  corpus: Corpus;
  /** Fault injection; none when absent. */
  faults?: StreamFaultInjector | undefined;
  /** Clock of the durations a search reports (durationMs); default performance.now (monotonic). */
  now?: (() => number) | undefined;
}
