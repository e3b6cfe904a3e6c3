import { z } from 'zod';
import { Corpus } from '../corpus/corpus.js';
import { StreamFaultInjector } from './faults.js';

const millis = z.number().int().positive();

export const StreamHandlerOptionsSchema = z.object({
  // Corpus has a private constructor (Corpus.open), which z.instanceof does not accept.
  corpus: z.custom<Corpus>((v) => v instanceof Corpus, 'expected a Corpus from Corpus.open()'),
  /** Fault injection; none when absent. */
  faults: z.instanceof(StreamFaultInjector).optional(),
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
  /** Timeout of a query without timeout:. */
  defaultTimeoutMs: millis.default(20_000),
  /** Clock of search deadlines and durations (tests replace it to force timeouts). */
  now: z.custom<() => number>((v) => typeof v === 'function').optional(),
});
export type StreamHandlerOptions = z.input<typeof StreamHandlerOptionsSchema>;
export type ResolvedStreamOptions = z.output<typeof StreamHandlerOptionsSchema>;
