// Only one process runs or resumes a run at a time: the hold it takes, and who holds it.

/** The process that holds a run's lease. */
export interface LeaseHolder {
  pid: number;
  host: string;
  acquiredAt: string;
  heartbeatAt: string;
}

/** This process's hold on a run: only the holder runs or resumes it. */
export interface RunLease {
  /** Set when a lease of a gone or silent process was taken over: what to log. */
  readonly takeover: string | undefined;
  /**
   * Local epoch ms by which the run's earlier processes had given up every request they sent: when the
   * lease was taken, if they had released it (after their clients closed) or are provably gone. Undefined
   * when a holder only went silent: it may be alive on another host, its sends still waiting for replies.
   */
  readonly earlierSendsGivenUpBy: number | undefined;
  /** Refreshes the heartbeat; undefined while the lease is ours, else who has it now. */
  heartbeat(): string | undefined;
  /** Throws LeaseLostError unless the lease is still ours: checked in each commit's own transaction. */
  fence(): void;
  release(): void;
}
