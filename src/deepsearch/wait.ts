import { setTimeout as sleep } from 'node:timers/promises';
import { AbortedError } from '../errors/errors.js';
import type { DeepSearchClient } from './client.js';
import { TERMINAL_STATES, questionAt, type Conversation, type Question } from '../model/conversation.js';

/** Delay before the next poll, given how many polls were made and how long the question has run. */
export type PollSchedule = (polls: number, elapsedMs: number) => number;

export function fixedSchedule(intervalMs: number): PollSchedule {
  return () => intervalMs;
}

/**
 * How a wait tells the time its question has taken, against the timeout: the local clock (the default),
 * or the server's (ItemClock in src/runner/item-clock.ts), so that a slow machine cannot make an answer late.
 */
export interface WaitClock {
  /**
   * After each poll: how long the question is known to have run, in the timeout's unit. A lower bound:
   * up to now while it runs; for one that ended, up to its end where the clock can tell, else up to
   * when it was last seen running.
   */
  ranFor(question: Question | undefined, conversation: Conversation): number;
  /** Real ms from now until the question will have run `ms`, as far as can be told: when the final poll is due. */
  realMsUntil(ms: number): number;
  /** True once the wait must end whatever the question's time says (a server that stopped answering). */
  givenUp(): boolean;
}

/** The local clock, from `started` (performance.now()): a question seen ended counts as ended in time. */
export function wallClock(started = performance.now()): WaitClock {
  let lastRunning = 0;
  return {
    ranFor: (question) => {
      if (question && TERMINAL_STATES.has(question.state)) return lastRunning;
      lastRunning = performance.now() - started;
      return lastRunning;
    },
    realMsUntil: (ms) => ms - (performance.now() - started),
    givenUp: () => false,
  };
}

export interface WaitOptions {
  schedule: PollSchedule;
  /** Give up once the question has run this long on `clock` (ms); the caller decides whether to cancel on the server. */
  timeoutMs: number;
  /** Default: the local clock from the wait's start. */
  clock?: WaitClock;
  signal?: AbortSignal;
  /** Each poll retries transient failures until `signal` aborts (see CallOptions). */
  persistent?: boolean;
  /** Headers of every poll (the request to trace it). */
  headers?: Record<string, string>;
  /** Sees every polled conversation, so the caller can record each state change as it is observed. */
  onPoll?: (conversation: Conversation) => void;
}

export interface WaitResult {
  conversation: Conversation;
  /** Undefined only when the conversation never listed the question before the timeout. */
  question: Question | undefined;
  polls: number;
  /** Given up: still running at the timeout, or (on a clock that can tell) ended after it. */
  timedOut: boolean;
  /** How long the question ran on the wait's clock, as of the last poll. */
  ranMs: number;
  wallMs: number;
}

/**
 * Polls until question `index` of a conversation reaches a terminal state, or has run `timeoutMs` on
 * the wait's clock. A question not yet listed (a follow-up the server has not shown yet) counts as processing.
 */
export async function waitForQuestion(
  client: DeepSearchClient,
  ref: string,
  index: number,
  options: WaitOptions,
): Promise<WaitResult> {
  const started = performance.now();
  const clock = options.clock ?? wallClock(started);
  let polls = 0;
  for (;;) {
    if (options.signal?.aborted) throw new AbortedError(`waiting for ${ref} aborted`);
    const pollStarted = performance.now();
    const conversation = await client.get(ref, {
      ...(options.signal && { signal: options.signal, ...(options.persistent && { persistent: true }) }),
      ...(options.headers && { headers: options.headers }),
    });
    polls++;
    options.onPoll?.(conversation);
    const question = questionAt(conversation, index);
    const elapsed = performance.now() - started;
    const ranMs = clock.ranFor(question, conversation);
    const ended = question !== undefined && TERMINAL_STATES.has(question.state);
    // The one verdict: ended within the timeout, or given up.
    if (ended && ranMs <= options.timeoutMs) return { conversation, question, polls, timedOut: false, ranMs, wallMs: elapsed };
    if (ended || ranMs >= options.timeoutMs || clock.givenUp()) return { conversation, question, polls, timedOut: true, ranMs, wallMs: elapsed };
    // Intervals run start to start, so a slow reply does not stretch them; the last wait is shortened
    // so that one final poll happens right at the timeout.
    const next = pollStarted - started + options.schedule(polls, pollStarted - started);
    const delay = Math.max(0, Math.min(next - elapsed, clock.realMsUntil(options.timeoutMs)));
    try {
      await sleep(delay, undefined, options.signal ? { signal: options.signal } : undefined);
    } catch {
      throw new AbortedError(`waiting for ${ref} aborted`);
    }
  }
}
