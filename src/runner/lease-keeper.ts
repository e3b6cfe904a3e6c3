import { LeaseLostError, StorageError } from '../errors/errors.js';
import type { RunLease } from '../model/lease.js';

/** How often a run's lease is refreshed, and after how long a silent holder is presumed gone (ms). */
export const DEFAULT_LEASE = { heartbeatMs: 10_000, staleMs: 60_000 };

/**
 * Keeps a run's lease while the run goes on: refreshes it on a heartbeat, aborts `lost` once another
 * process took it over (our heartbeat went silent), and releases it at the end.
 */
export class LeaseKeeper {
  private readonly taken = new AbortController();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly lease: RunLease,
    private readonly runId: number,
    heartbeatMs: number,
    private readonly log: (message: string) => void,
  ) {
    this.heartbeat = setInterval(() => this.beat(), heartbeatMs).unref();
  }

  /** Aborts (with a LeaseLostError) once another process took the run over: launching stops. */
  get lost(): AbortSignal {
    return this.taken.signal;
  }

  /** Stops the heartbeat and releases the lease, unless another process holds it now. */
  release(): void {
    clearInterval(this.heartbeat);
    if (this.taken.signal.aborted) return;
    try {
      this.lease.release();
    } catch (error) {
      if (!(error instanceof StorageError)) throw error;
      // The run's own outcome stands (a failed store is reported by it): a lease left behind goes stale,
      // and a resume takes it over from a process that is gone.
      this.log(`could not release the lease of run ${this.runId}: ${error.message}`);
    }
  }

  private beat(): void {
    try {
      const other = this.lease.heartbeat();
      if (other === undefined) return;
      this.log(`lost the lease of run ${this.runId}: ${other}; stopping, asking and recording nothing more`);
      // Its running items are the other process's now: their next commit fails (RunLease.fence), and the run with this.
      this.taken.abort(new LeaseLostError(this.runId, other));
      clearInterval(this.heartbeat);
    } catch (error) {
      this.log(`could not refresh the lease of run ${this.runId}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
