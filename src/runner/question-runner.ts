import { AbortedError, HttpStatusError, LookupIncompleteError } from '../errors/errors.js';
import { linkedSignal } from '../http/linked-signal.js';
import { redact } from '../redact.js';
import type { ItemOutcome, TurnRecord } from '../model/item.js';
import type { ResumeItem, ResumeTurn } from '../model/run.js';
import { send } from './ask-turn.js';
import { deleteConversation } from './cleanup.js';
import { evaluateQuestion } from './expectations.js';
import { follow, formatTimeout, turnEnded } from './follow-turn.js';
import { ItemClock } from './item-clock.js';
import type { ItemContext, QuestionItem } from './item-context.js';
import type { ItemSummary } from './item-summary.js';
import { isoNow as iso } from './iso-now.js';
import { cancelOnServer } from './server-cancel.js';
import { CANCELLED_ON_INTERRUPT } from './stopped.js';
import { recordChecks } from './trace-requests.js';

/** Where a resumed item picks up: which turn, and whether that turn was sent, or may have been. */
interface Start {
  ref: string | undefined;
  turns: TurnRecord[];
  next: number;
  /** The next turn was sent (or may have been): look before asking it again. */
  pending: 'poll' | 'maybe-sent' | 'ask';
  sentAt?: string | undefined;
}

/**
 * Runs one conversation: asks the question, then each follow-up after the previous answer ends, polling
 * on the target's schedule; records every state change as it is observed; cancels on the server a turn
 * that outlives the item's timeout; evaluates expectations. A resumed item is re-polled by its stored
 * conversation, never asked again; a send whose outcome is unknown is looked for first (SendRecovery).
 */
export async function runQuestion(ctx: ItemContext, item: QuestionItem, resume?: ResumeItem): Promise<ItemSummary> {
  const { recorder, runId, log } = ctx.run;
  const { recovery, gate } = ctx.target;
  const abort = ctx.run.signals.abort;
  const texts = [item.question.text, ...item.question.followups.map((f) => f.text)];
  const start = startOf(resume, texts);
  // Recorded with the first write, so a fresh item's start and its first send are one commit; the time is
  // now, when its clock (and its timeout) starts, not when that write comes.
  const startedAt = iso();
  let started = false;
  const markStarted = () => {
    if (!started) recorder.itemStarted(runId, item.key, startedAt);
    started = true;
  };
  if (start.pending !== 'ask' || start.next >= texts.length) markStarted();
  // The end of the last turn followed, written with whatever comes next before any request (the next
  // turn's send, or the item's end): one commit instead of two, and no request in between.
  let ended: (() => void) | undefined;
  const commit = (write: () => void) =>
    recorder.inOneCommit(() => {
      markStarted();
      ended?.();
      ended = undefined;
      write();
    });
  const turns = start.turns;
  let ref = start.ref;
  let message: string | undefined;
  const clock = new ItemClock(item.question.timeoutMs, ctx.target.timeScale, turns.reduce((sum, t) => sum + (t?.serverMs ?? 0), 0));
  // Requests of the item retry transient failures until its wall-clock bound (with a little grace, so
  // the last poll at the timeout is not cut short), or until the run is aborted.
  const limit = linkedSignal(abort, clock.wallLimitMs + Math.max(1000, clock.wallLimitMs / 10));
  const until = limit.signal;
  try {
    let following = false;

    let current = start.next;
    try {
      for (; current < texts.length; current++) {
        const text = texts[current] as string;
        let sentAt = start.sentAt ?? iso();
        let sentClock = performance.now() - (Date.now() - Date.parse(sentAt));
        let resumed = current === start.next && start.pending === 'poll';
        if (current === start.next && start.pending === 'maybe-sent') {
          const looked = await recovery.findResumed({ key: item.key, ref, index: current, text, sentAt: start.sentAt }, ctx.slot, until);
          if (looked.ref !== undefined) [ref, resumed] = [looked.ref, true];
          else log(`${item.key}: ${looked.said}; turn ${current} is not on the server and its send can no longer land: asking it`);
        }
        // A send that provably did not act (not found once its window passed) is sent again.
        while (!resumed) {
          sentClock = performance.now();
          const sending = { at: iso() };
          const index = current;
          const recordSending = () => commit(() => recorder.recordTurn(runId, item.key, index, { state: 'sending', text, sentAt: sending.at, polls: 0 }));
          const sent = await send(ctx, item, ref, current, text, sending, recordSending, until);
          sentAt = sending.at;
          if (sent !== undefined) [ref, resumed] = [sent, true];
        }
        following = true;
        const followed = await follow(ctx, item, { ref: ref as string, index: current, text, sentAt, sentClock }, clock, until);
        following = false;
        const turn = followed.turn;
        ended = followed.record;
        turns[current] = turn;
        if (turn.state !== 'completed') break;
      }
    } catch (error) {
      const text = texts[current] ?? '';
      // What was observed is committed before the cancel request below.
      if (ended) commit(() => undefined);
      if (abort.aborted) {
        await cancelOnServer(ctx, item.key, ref);
        message = CANCELLED_ON_INTERRUPT;
        turns[current] = { state: 'canceled', text, clientError: message, polls: 0 };
      } else if (error instanceof AbortedError) {
        // The item's own timeout passed while a request was still being retried.
        await cancelOnServer(ctx, item.key, ref);
        message = `no answer within ${formatTimeout(item.question.timeoutMs)} (requests were still failing); cancelled on the server`;
        turns[current] = { state: 'timeout', text, clientError: message, polls: 0 };
      } else if (error instanceof LookupIncompleteError) {
        // Whether the send acted is unknown: the item stays unfinished, and a resume looks for it again.
        message = redact(error.message);
        log(message);
        commit(() => recorder.itemUnobserved(runId, item.key, message as string));
        return { outcome: 'client_error', credits: null, passed: 0, failed: 0 };
      } else if (following && ref !== undefined && !(error instanceof HttpStatusError && error.status === 404)) {
        // The question is on the server and its outcome unobserved: kept for a resume to re-poll, never re-asked.
        message = redact(error instanceof Error ? error.message : String(error));
        if (error instanceof HttpStatusError && (error.status === 401 || error.status === 403)) gate.fail(message);
        log(`${item.key}: ${message}; conversation ${ref} is kept unfinished: dsbench run --resume ${runId} re-polls it`);
        commit(() => recorder.itemUnobserved(runId, item.key, message as string));
        return { outcome: 'client_error', credits: null, passed: 0, failed: 0 };
      } else {
        message = redact(error instanceof Error ? error.message : String(error));
        if (error instanceof HttpStatusError && (error.status === 401 || error.status === 403)) gate.fail(message);
        turns[current] = { state: 'client_error', text, clientError: message, polls: 0 };
      }
      ended = turnEnded(ctx, item.key, current, turns[current] as TurnRecord);
    }

    const asked = turns.filter(Boolean);
    const outcome = outcomeOf(asked[asked.length - 1]);
    const results = evaluateQuestion(item.question.expect, item.question.followups, asked);
    commit(() => {
      recordChecks(ctx, item.key, outcome === 'completed', results);
      recorder.itemFinished(runId, item.key, outcome, iso(), message);
    });
    if (ctx.run.cleanup && ref !== undefined) await deleteConversation({ runId, recorder, client: ctx.target.client, log }, item.key, ref);
    return {
      outcome,
      credits: asked.some((t) => t.stats?.credits !== undefined) ? asked.reduce((sum, t) => sum + (t.stats?.credits ?? 0), 0) : null,
      passed: results.filter((r) => r.passed).length,
      failed: results.filter((r) => !r.passed).length,
      turns: asked,
    };
  } finally {
    limit.dispose();
  }
}

/** An item ends as its last turn did; a turn left sending or processing means a request failed. */
function outcomeOf(last: TurnRecord | undefined): ItemOutcome {
  if (!last || last.state === 'sending' || last.state === 'processing') return 'client_error';
  return last.state;
}

function startOf(resume: ResumeItem | undefined, texts: string[]): Start {
  const recorded = resume?.turns ?? [];
  const turns: TurnRecord[] = [];
  const last = recorded[recorded.length - 1];
  if (!last) return { ref: resume?.conversationRef, turns, next: 0, pending: 'ask' };
  for (const t of recorded.slice(0, -1)) turns[t.turn] = restored(t, texts);
  // A turn being sent when the process died may have reached the server: look before asking again.
  if (last.state === 'sending') return { ref: resume?.conversationRef, turns, next: last.turn, pending: 'maybe-sent', sentAt: last.sentAt };
  if (last.state === 'processing') return { ref: resume?.conversationRef, turns, next: last.turn, pending: 'poll', sentAt: last.sentAt };
  turns[last.turn] = restored(last, texts);
  return { ref: resume?.conversationRef, turns, next: last.state === 'completed' ? last.turn + 1 : texts.length, pending: 'ask' };
}

/** A turn finished before the interruption, with whatever the recorder gave back of it (answer, stats, ...). */
function restored(recorded: ResumeTurn, texts: string[]): TurnRecord {
  const { turn, ...record } = recorded;
  return { ...record, text: texts[turn] ?? record.text ?? '', polls: record.polls ?? 0 };
}

