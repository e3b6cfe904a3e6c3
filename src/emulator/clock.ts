import { performance } from 'node:perf_hooks';

/**
 * Virtual time runs 1/timeScale times faster than real time, so a long answer can be
 * rehearsed in milliseconds while every timestamp and duration on the wire stays realistic.
 * It never passes a held time (an answer still being worked out), so a slow or busy machine slows the
 * emulated world down instead of making its answers late on its own clock.
 */
export class VirtualClock {
  private readonly realStart: number;
  /** Moves the clock after start (a server clock offset changed at run time). */
  private shiftMs = 0;
  private held: () => number | undefined = () => undefined;

  constructor(
    readonly timeScale: number,
    readonly startMs: number,
    private readonly realNow: () => number = () => performance.now(),
  ) {
    this.realStart = realNow();
  }

  /** Current virtual time, whole epoch ms: the running time, or the held time while that is earlier. */
  now(): number {
    const running = Math.floor(this.startMs + this.shiftMs + this.toVirtualMs(this.realNow() - this.realStart));
    const held = this.held();
    return held === undefined ? running : Math.min(running, held);
  }

  /** `until` gives the time the clock must not pass for now (undefined: none); it only ever gives a time not yet passed. */
  holdAt(until: () => number | undefined): void {
    this.held = until;
  }

  /** Sets the clock ahead (positive) or back by `ms` from now on. */
  shift(ms: number): void {
    this.shiftMs += ms;
  }

  /** Real ms that a virtual duration takes. */
  toRealMs(virtualMs: number): number {
    return virtualMs * this.timeScale;
  }

  /** Virtual ms that a real duration stands for. */
  toVirtualMs(realMs: number): number {
    return realMs / this.timeScale;
  }
}

/** Timestamps of both APIs: whole seconds, `YYYY-MM-DDTHH:MM:SSZ`. */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** A time to retry at, in whole seconds, never before `ms`: a client that waits for it must find the limit lifted. */
export function isoSecondsNotBefore(ms: number): string {
  return isoSeconds(Math.ceil(ms / 1000) * 1000);
}

/** Start of the UTC month after `ms`. */
export function nextMonthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}
