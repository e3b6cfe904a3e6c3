import { TERMINAL_STATES, type Conversation, type Question } from '../model/conversation.js';
import { wallClock, type WaitClock } from '../deepsearch/wait.js';

/**
 * The time an item (a question and its follow-ups) has taken against its timeout.
 *
 * On a target at real pace it is the local clock from the item's start, as a user waiting would count it.
 * On a time-scaled emulator it is the server's: the time the server spent on the item's turns, from each
 * question's creation to its end (or, for the one running, to the `Date` of the last reply), so a slow or
 * busy machine, late polls or dsbench's own pauses between turns cannot make a rehearsal time out, and a
 * rehearsal times out exactly where its answers' emulated times say. A wall-clock bound (the unscaled
 * timeout) still ends an item whose server stops answering.
 */
export class ItemClock {
  private readonly started = performance.now();
  /** Server ms of the turns that ended (restored ones on resume included). */
  private spentMs: number;
  /** Real ms after which the item gives up whatever its time says. */
  readonly wallLimitMs: number;

  constructor(
    readonly timeoutMs: number,
    private readonly timeScale: number,
    spentMs = 0,
  ) {
    this.spentMs = timeScale === 1 ? 0 : spentMs;
    this.wallLimitMs = timeoutMs * Math.max(1, timeScale);
  }

  /** Whether time is told by the server's clock (a time-scaled target). */
  get onServerTime(): boolean {
    return this.timeScale !== 1;
  }

  /** A turn ended after `serverMs` on the server: it counts toward the item's time. */
  spend(serverMs: number | undefined): void {
    if (serverMs !== undefined && serverMs > 0) this.spentMs += serverMs;
  }

  /** The clock a wait for one turn tells the item's time by. */
  forTurn(): WaitClock {
    if (!this.onServerTime) return wallClock(this.started);
    const turnStarted = performance.now();
    const spent = this.spentMs;
    let ran = spent;
    return {
      ranFor: (question, conversation) => {
        const created = question ? createdMs(question, conversation) : undefined;
        let turn: number | undefined;
        if (question && created !== undefined && TERMINAL_STATES.has(question.state)) turn = serverDuration(question, conversation);
        else if (created !== undefined) {
          // The server's time at the reply is at least its Date (whole seconds); whole-second creation
          // times may be up to a second late.
          const date = Date.parse(conversation.serverDate ?? '');
          if (!Number.isNaN(date)) turn = Math.max(0, date - created - (created % 1000 === 0 ? 999 : 0));
        }
        // A question not listed yet, or a server that tells no times: the local time since the wait began, at the target's pace.
        turn ??= (performance.now() - turnStarted) / this.timeScale;
        ran = Math.max(ran, spent + turn);
        return ran;
      },
      realMsUntil: (ms) => Math.min((ms - ran) * this.timeScale, this.wallLimitMs - (performance.now() - this.started)),
      givenUp: () => performance.now() - this.started >= this.wallLimitMs,
    };
  }
}

function createdMs(question: Question, conversation: Conversation): number | undefined {
  const created = Date.parse(question.createdAt ?? (question.index === 0 ? (conversation.createdAt ?? '') : ''));
  return Number.isNaN(created) ? undefined : created;
}

/**
 * How long a question that ended took on the server: legacy `stats.time_millis`; otherwise from its
 * creation to the conversation's last update. Undefined when the server tells neither.
 */
export function serverDuration(question: Question, conversation: Conversation): number | undefined {
  const serverMillis = question.stats?.timeMillis;
  if (serverMillis !== undefined && serverMillis > 0) return serverMillis;
  const created = createdMs(question, conversation);
  const ms = Date.parse(conversation.updatedAt ?? question.updatedAt ?? '') - (created ?? NaN);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}
