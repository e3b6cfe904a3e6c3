import { setTimeout as sleep } from 'node:timers/promises';
import { AbortedError } from '../http/errors.js';
import type { DeepSearchClient } from './client.js';
import { TERMINAL_STATES, questionAt, type Conversation, type Question } from './model.js';

/** Delay before the next poll, given how many polls were made and how long the question has run. */
export type PollSchedule = (polls: number, elapsedMs: number) => number;

export function fixedSchedule(intervalMs: number): PollSchedule {
  return () => intervalMs;
}

export interface WaitOptions {
  schedule: PollSchedule;
  /** Give up after this long (ms); the caller decides whether to cancel on the server. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Each poll retries transient failures until `signal` aborts (see CallOptions). */
  persistent?: boolean;
  /** Sees every polled conversation, so the caller can record each state change as it is observed. */
  onPoll?: (conversation: Conversation) => void;
}

export interface WaitResult {
  conversation: Conversation;
  /** Undefined only when the conversation never listed the question before the timeout. */
  question: Question | undefined;
  polls: number;
  timedOut: boolean;
  wallMs: number;
}

/**
 * Polls until question `index` of a conversation reaches a terminal state. A question not yet listed
 * (a follow-up the server has not shown yet) counts as processing.
 */
export async function waitForQuestion(
  client: DeepSearchClient,
  ref: string,
  index: number,
  options: WaitOptions,
): Promise<WaitResult> {
  const started = performance.now();
  let polls = 0;
  for (;;) {
    if (options.signal?.aborted) throw new AbortedError(`waiting for ${ref} aborted`);
    const pollStarted = performance.now();
    const conversation = await client.get(ref, options.signal ? { signal: options.signal, ...(options.persistent && { persistent: true }) } : {});
    polls++;
    options.onPoll?.(conversation);
    const question = questionAt(conversation, index);
    const elapsed = performance.now() - started;
    if (question && TERMINAL_STATES.has(question.state)) {
      return { conversation, question, polls, timedOut: false, wallMs: elapsed };
    }
    if (elapsed >= options.timeoutMs) return { conversation, question, polls, timedOut: true, wallMs: elapsed };
    // Intervals run start to start, so a slow reply does not stretch them; the last wait is shortened
    // so that one final poll happens right at the timeout.
    const next = pollStarted - started + options.schedule(polls, pollStarted - started);
    const delay = Math.max(0, Math.min(next, options.timeoutMs) - elapsed);
    try {
      await sleep(delay, undefined, options.signal ? { signal: options.signal } : undefined);
    } catch {
      throw new AbortedError(`waiting for ${ref} aborted`);
    }
  }
}
