import { setTimeout as sleep } from 'node:timers/promises';
import type { QuestionError, QuotaUsage } from '../model/conversation.js';
import { ExitCode } from '../errors/exit-codes.js';

export type QuotaPolicy = 'stop' | 'wait' | 'continue';

export interface Stop {
  reason: string;
  exitCode: ExitCode;
}

/**
 * Decides whether more work may start on one target: it stops on an auth failure or, by policy, on
 * quota exhaustion; under `wait` it holds launches until the reset or retry time.
 */
export class TargetGate {
  private stop: Stop | undefined;
  private resumeAt: number | undefined;

  constructor(
    readonly name: string,
    private readonly policy: QuotaPolicy,
    /** Longest wait for a quota reset, in real time; a later reset stops the target instead. */
    private readonly maxWaitMs: number,
    /** Real ms per server ms: below 1 on a time-scaled emulator, whose reset times are in its virtual time. */
    private readonly timeScale = 1,
    private readonly now: () => number = Date.now,
  ) {}

  get stopped(): Stop | undefined {
    return this.stop;
  }

  /** Resolves when a launch may go ahead, or with the reason it may not. */
  async admit(signal: AbortSignal): Promise<Stop | undefined> {
    while (this.stop === undefined && this.resumeAt !== undefined && this.resumeAt > this.now()) {
      await sleep(Math.min(this.resumeAt - this.now(), 1000), undefined, { signal }).catch(() => undefined);
      if (signal.aborted) return { reason: 'aborted', exitCode: ExitCode.aborted };
    }
    return this.stop;
  }

  /**
   * A question ended with quota or entitlement exhaustion; returns what was decided, for the log.
   * `serverNow` is the server's clock at the reply (its Date header): its reset times are on that clock,
   * which may differ from ours, and on a time-scaled emulator is virtual.
   */
  onQuotaError(error: QuestionError, quota: QuotaUsage | undefined, serverNow = this.now()): string | undefined {
    if (this.policy === 'continue' || this.stop) return undefined;
    const what = `${error.code} on target ${this.name}`;
    if (this.policy === 'stop') {
      this.stop = { reason: `${what}: stopped launching (--on-quota stop)`, exitCode: ExitCode.aborted };
      return this.stop.reason;
    }
    const until = Date.parse(error.retryTime ?? quota?.resetTime ?? '');
    if (Number.isNaN(until)) {
      this.stop = { reason: `${what}: no reset or retry time was given, so there is nothing to wait for; stopped launching`, exitCode: ExitCode.aborted };
      return this.stop.reason;
    }
    const waitMs = Math.max(0, (until - serverNow) * this.timeScale);
    if (waitMs > this.maxWaitMs) {
      this.stop = {
        reason:
          `${what}: the quota resets at ${new Date(until).toISOString()} (server time), later than --max-quota-wait allows; stopped launching ` +
          `(raise --max-quota-wait, or --resume this run after the reset)`,
        exitCode: ExitCode.aborted,
      };
      return this.stop.reason;
    }
    const resumeAt = this.now() + waitMs;
    if (this.resumeAt !== undefined && this.resumeAt >= resumeAt) return undefined;
    this.resumeAt = resumeAt;
    const scaled = this.timeScale === 1 ? '' : `, ${seconds(waitMs)} of real time at time scale ${this.timeScale}`;
    return `${what}: waiting until ${new Date(until).toISOString()} (server time${scaled}) before launching more (--on-quota wait)`;
  }

  /** The instance refused the credentials or could not be reached: nothing more can succeed on it. */
  fail(reason: string): void {
    this.stop ??= { reason, exitCode: ExitCode.unreachable };
  }
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
