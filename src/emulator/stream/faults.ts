import { z } from 'zod';
import { createRng, type Rng } from '../random.js';

/**
 * Faults the stream can inject, at most one per request:
 * - cutBeforeDone: the connection is closed after the first batch of events (or just before `done`
 *   when nothing came earlier), without `done` and without the end of the chunked body;
 * - malformedEvent: the first event is a `matches` event whose data is not valid JSON; the stream
 *   then continues normally;
 * - stall: after the first batch nothing is written for `stallMs`, the connection stays open;
 * - status401: plain-text `401 Invalid access token.\n` before any event;
 * - status500: plain-text 500 before any event.
 */
export const STREAM_FAULT_KINDS = ['cutBeforeDone', 'malformedEvent', 'stall', 'status401', 'status500'] as const;
export type StreamFaultKind = (typeof STREAM_FAULT_KINDS)[number];

const rate = z.number().min(0).max(1).default(0);

export const StreamFaultOptionsSchema = z.object({
  /** Probability per request of each fault; their sum must not exceed 1. */
  rates: z
    .object(Object.fromEntries(STREAM_FAULT_KINDS.map((kind) => [kind, rate])) as Record<StreamFaultKind, typeof rate>)
    .default({ cutBeforeDone: 0, malformedEvent: 0, stall: 0, status401: 0, status500: 0 })
    .refine((r) => STREAM_FAULT_KINDS.reduce((sum, kind) => sum + r[kind], 0) <= 1, 'fault rates must add up to at most 1'),
  stallMs: z.number().int().nonnegative().default(10_000),
  /** Seed of the generator behind the rates, so a run's faults can be replayed. */
  seed: z.number().int().default(1),
});
export type StreamFaultOptions = z.input<typeof StreamFaultOptionsSchema>;

/** Picks the fault of each request: first from the queue, else drawn by the configured rates. */
export class StreamFaultInjector {
  stallMs: number;
  private rates: Record<StreamFaultKind, number>;
  private readonly queue: StreamFaultKind[] = [];
  private readonly rng: Rng;

  constructor(options: StreamFaultOptions = {}) {
    const parsed = StreamFaultOptionsSchema.parse(options);
    this.rates = parsed.rates;
    this.stallMs = parsed.stallMs;
    this.rng = createRng(parsed.seed);
  }

  /** The settings in force. */
  current(): { rates: Record<StreamFaultKind, number>; stallMs: number } {
    return { rates: { ...this.rates }, stallMs: this.stallMs };
  }

  /** Replaces rates and stall time from now on (the admin interface); the seeded sequence goes on. */
  configure(settings: { rates: Record<StreamFaultKind, number>; stallMs: number }): void {
    this.rates = { ...settings.rates };
    this.stallMs = settings.stallMs;
  }

  /** Forces faults on the next requests, one each, in order. */
  enqueue(...faults: StreamFaultKind[]): void {
    this.queue.push(...z.array(z.enum(STREAM_FAULT_KINDS)).parse(faults));
  }

  /** One draw per request whatever happens, so the rate sequence does not depend on the queue. */
  next(): StreamFaultKind | undefined {
    let draw = this.rng.next();
    const queued = this.queue.shift();
    if (queued) return queued;
    for (const kind of STREAM_FAULT_KINDS) {
      draw -= this.rates[kind];
      if (draw < 0) return kind;
    }
    return undefined;
  }
}
