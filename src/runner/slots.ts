import { AbortedError } from '../errors/errors.js';

/** One item's hold on a slot: given up while it only waits, taken again before it sends anything. */
export interface ItemSlot {
  /** Gives the slot to the next in line; a no-op when not held. */
  leave(): void;
  /** Takes a slot again, ahead of items not started yet; rejects with AbortedError when `signal` aborts first. */
  retake(signal: AbortSignal): Promise<void>;
}

/**
 * A per-target limit of items at once (`concurrency`, `searchConcurrency`). Unlike a plain limiter, an
 * item may give its slot up while it waits (a send that may still land, or a send's retry after an attempt
 * the server did not act on) and take one again, ahead of items that have not started: waiting items are
 * finished before new ones are begun.
 */
export class Slots {
  private held = 0;
  private readonly returning: Array<() => void> = [];
  private readonly starting: Array<() => void> = [];

  constructor(readonly size: number) {}

  /** Items holding a slot now. */
  get active(): number {
    return this.held;
  }

  /** Resolves with a held slot for a new item, once one is free and no returning item waits for it. */
  async start(): Promise<ItemSlot> {
    if (this.held < this.size && this.returning.length === 0 && this.starting.length === 0) this.held++;
    else await new Promise<void>((resolve) => this.starting.push(resolve));
    return this.slot();
  }

  /** Runs `work` in a slot it keeps throughout. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const slot = await this.start();
    try {
      return await work();
    } finally {
      slot.leave();
    }
  }

  private slot(): ItemSlot {
    let holding = true;
    return {
      leave: () => {
        if (!holding) return;
        holding = false;
        this.free();
      },
      retake: async (signal) => {
        if (holding) return;
        await this.take(signal);
        holding = true;
      },
    };
  }

  private take(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(new AbortedError('aborted while waiting for a slot'));
    if (this.held < this.size && this.returning.length === 0) {
      this.held++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const granted = () => {
        signal.removeEventListener('abort', aborted);
        resolve();
      };
      const aborted = () => {
        const at = this.returning.indexOf(granted);
        if (at >= 0) this.returning.splice(at, 1);
        reject(new AbortedError('aborted while waiting for a slot'));
      };
      signal.addEventListener('abort', aborted, { once: true });
      this.returning.push(granted);
    });
  }

  /** A slot freed goes to a returning item first, then to a new one; handed over, it stays counted as held. */
  private free(): void {
    const next = this.returning.shift() ?? this.starting.shift();
    if (next) next();
    else this.held--;
  }
}
