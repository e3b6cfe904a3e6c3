/** Per-user credit ledger for one rolling quota period. */

export interface QuotaUsage {
  totalQuota: number;
  /** -1 means unlimited. */
  quotaLimit: number;
  resetAtMs: number;
}

export class QuotaLedger {
  private readonly used = new Map<number, number>();
  private resetAtMs: number;

  constructor(
    private readonly limit: number,
    firstResetMs: number,
  ) {
    this.resetAtMs = firstResetMs;
  }

  usage(userId: number, nowMs: number): QuotaUsage {
    this.roll(nowMs);
    return { totalQuota: this.used.get(userId) ?? 0, quotaLimit: this.limit, resetAtMs: this.resetAtMs };
  }

  exhausted(userId: number, nowMs: number): boolean {
    return this.limit >= 0 && this.usage(userId, nowMs).totalQuota >= this.limit;
  }

  charge(userId: number, credits: number, nowMs: number): void {
    this.roll(nowMs);
    if (credits > 0) this.used.set(userId, (this.used.get(userId) ?? 0) + credits);
  }

  /** A fast virtual clock can cross period boundaries: usage restarts at each one. */
  private roll(nowMs: number): void {
    while (nowMs >= this.resetAtMs) {
      this.used.clear();
      const d = new Date(this.resetAtMs);
      this.resetAtMs = Date.UTC(
        d.getUTCFullYear(),
        d.getUTCMonth() + 1,
        d.getUTCDate(),
        d.getUTCHours(),
        d.getUTCMinutes(),
        d.getUTCSeconds(),
      );
    }
  }
}
