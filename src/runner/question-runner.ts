import { AbortedError, HttpStatusError, LookupIncompleteError } from '../errors/errors.js';
import { linkedSignal } from '../http/linked-signal.js';
import { redact } from '../redact.js';
import type { ItemOutcome, TurnRecord } from '../model/item.js';
import type { ResumeItem, ResumeTurn } from '../model/run.js';
import { send } from './ask-turn.js';
import { deleteConversation } from './cleanup.js';
import { evaluateQuestion } from './expectations.js';
import { follow, formatTimeout, turnEnded, type SentQuestion } from './follow-turn.js';
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
  const texts = [item.question.text, ...item.question.followups.map((f) => f.text)];
  const start = startOf(resume, texts);
  const p = new ItemProgress(ctx, item.key, texts, start);
  const clock = new ItemClock(item.question.timeoutMs, ctx.target.timeScale, p.turns.reduce((sum, t) => sum + (t?.serverMs ?? 0), 0));
  // Requests of the item retry transient failures until its wall-clock bound (with a little grace, so
  // the last poll at the timeout is not cut short), or until the run is aborted.
  const limit = linkedSignal(ctx.run.signals.abort, clock.wallLimitMs + Math.max(1000, clock.wallLimitMs / 10));
  try {
    try {
      await askTurns(ctx, item, p, start, clock, limit.signal);
    } catch (error) {
      const unfinished = await turnFailed(ctx, item, p, error);
      if (unfinished) return unfinished;
    }
    return await finish(ctx, item, p);
  } finally {
    limit.dispose();
  }
}

/** What an item knows of its conversation as it runs, and the writes it still owes the store. */
class ItemProgress {
  ref: string | undefined;
  readonly turns: TurnRecord[];
  /** The turn being asked or followed. */
  current: number;
  /** The current turn was sent and is being followed: its question is on the server. */
  following = false;
  /** Why the item ended early, recorded with its end. */
  message: string | undefined;
  /**
   * The end of the last turn followed, written with whatever comes next before any request (the next
   * turn's send, or the item's end): one commit instead of two, and no request in between.
   */
  ended: (() => void) | undefined;
  private started = false;
  // Recorded with the first write, so a fresh item's start and its first send are one commit; the time is
  // now, when its clock (and its timeout) starts, not when that write comes.
  private readonly startedAt = iso();

  constructor(
    private readonly ctx: ItemContext,
    private readonly key: string,
    readonly texts: string[],
    start: Start,
  ) {
    this.ref = start.ref;
    this.turns = start.turns;
    this.current = start.next;
    if (start.pending !== 'ask' || start.next >= texts.length) this.markStarted();
  }

  /** Writes in one commit with the item's start and the last turn's end, if either is not written yet. */
  commit(write: () => void): void {
    this.ctx.run.recorder.inOneCommit(() => {
      this.markStarted();
      this.ended?.();
      this.ended = undefined;
      write();
    });
  }

  private markStarted(): void {
    if (!this.started) this.ctx.run.recorder.itemStarted(this.ctx.run.runId, this.key, this.startedAt);
    this.started = true;
  }
}

/** Asks each turn still to ask and follows it to its end; stops after a turn that did not complete. */
async function askTurns(ctx: ItemContext, item: QuestionItem, p: ItemProgress, start: Start, clock: ItemClock, until: AbortSignal): Promise<void> {
  for (; p.current < p.texts.length; p.current++) {
    const sent = await sendUnlessOnServer(ctx, item, p, start, until);
    p.following = true;
    const followed = await follow(ctx, item, sent, clock, until);
    p.following = false;
    const turn = followed.turn;
    p.ended = followed.record;
    p.turns[p.current] = turn;
    if (turn.state !== 'completed') break;
  }
}

/**
 * Sends the current turn, unless it is on the server already: a resumed turn being answered, or one whose
 * send may have landed and which the target's recovery finds there. A send that provably did not act (not
 * found once its window passed) is sent again.
 */
async function sendUnlessOnServer(ctx: ItemContext, item: QuestionItem, p: ItemProgress, start: Start, until: AbortSignal): Promise<SentQuestion> {
  const { recorder, runId } = ctx.run;
  const index = p.current;
  const text = p.texts[index] as string;
  let sentAt = start.sentAt ?? iso();
  let sentClock = performance.now() - (Date.now() - Date.parse(sentAt));
  let resumed = index === start.next && start.pending === 'poll';
  if (index === start.next && start.pending === 'maybe-sent') {
    const looked = await ctx.target.recovery.findResumed({ key: item.key, ref: p.ref, index, text, sentAt: start.sentAt }, ctx.slot, until);
    if (looked.ref !== undefined) [p.ref, resumed] = [looked.ref, true];
    else ctx.run.log(`${item.key}: ${looked.said}; turn ${index} is not on the server and its send can no longer land: asking it`);
  }
  while (!resumed) {
    sentClock = performance.now();
    const sending = { at: iso() };
    const recordSending = () => p.commit(() => recorder.recordTurn(runId, item.key, index, { state: 'sending', text, sentAt: sending.at, polls: 0 }));
    const sent = await send(ctx, item, p.ref, index, text, sending, recordSending, until);
    sentAt = sending.at;
    if (sent !== undefined) [p.ref, resumed] = [sent, true];
  }
  return { ref: p.ref as string, index, text, sentAt, sentClock };
}

/**
 * What a failure of the current turn makes of the item. An interrupt, the item's timeout or a failed request
 * end the turn (cancelled on the server when it may still run), and the item ends as it did. When whether
 * the send acted, or the outcome of a question on the server, is unknown, the item is kept unfinished for a
 * resume: its summary is returned, and nothing more is to be written.
 */
async function turnFailed(ctx: ItemContext, item: QuestionItem, p: ItemProgress, error: unknown): Promise<ItemSummary | undefined> {
  const { runId, log } = ctx.run;
  const current = p.current;
  const text = p.texts[current] ?? '';
  // What was observed is committed before the cancel request below.
  if (p.ended) p.commit(() => undefined);
  if (ctx.run.signals.abort.aborted) {
    await cancelOnServer(ctx, item.key, p.ref);
    p.message = CANCELLED_ON_INTERRUPT;
    p.turns[current] = { state: 'canceled', text, clientError: p.message, polls: 0 };
  } else if (error instanceof AbortedError) {
    // The item's own timeout passed while a request was still being retried.
    await cancelOnServer(ctx, item.key, p.ref);
    p.message = `no answer within ${formatTimeout(item.question.timeoutMs)} (requests were still failing); cancelled on the server`;
    p.turns[current] = { state: 'timeout', text, clientError: p.message, polls: 0 };
  } else if (error instanceof LookupIncompleteError) {
    // Whether the send acted is unknown: the item stays unfinished, and a resume looks for it again.
    const message = redact(error.message);
    log(message);
    return keptUnfinished(ctx, item.key, p, message);
  } else if (p.following && p.ref !== undefined && !(error instanceof HttpStatusError && error.status === 404)) {
    // The question is on the server and its outcome unobserved: kept for a resume to re-poll, never re-asked.
    const message = redact(error instanceof Error ? error.message : String(error));
    if (error instanceof HttpStatusError && (error.status === 401 || error.status === 403)) ctx.target.gate.fail(message);
    log(`${item.key}: ${message}; conversation ${p.ref} is kept unfinished: dsbench run --resume ${runId} re-polls it`);
    return keptUnfinished(ctx, item.key, p, message);
  } else {
    p.message = redact(error instanceof Error ? error.message : String(error));
    if (error instanceof HttpStatusError && (error.status === 401 || error.status === 403)) ctx.target.gate.fail(p.message);
    p.turns[current] = { state: 'client_error', text, clientError: p.message, polls: 0 };
  }
  p.ended = turnEnded(ctx, item.key, current, p.turns[current] as TurnRecord);
  return undefined;
}

/** Records why the item is left unfinished (a resume takes it up) and summarises it as a client error. */
function keptUnfinished(ctx: ItemContext, key: string, p: ItemProgress, message: string): ItemSummary {
  p.commit(() => ctx.run.recorder.itemUnobserved(ctx.run.runId, key, message));
  return { outcome: 'client_error', credits: null, passed: 0, failed: 0 };
}

/** Evaluates the expectations, records the item's end (with the last turn's), deletes the conversation under `--cleanup`. */
async function finish(ctx: ItemContext, item: QuestionItem, p: ItemProgress): Promise<ItemSummary> {
  const { recorder, runId, log } = ctx.run;
  const asked = p.turns.filter(Boolean);
  const outcome = outcomeOf(asked[asked.length - 1]);
  const results = evaluateQuestion(item.question.expect, item.question.followups, asked);
  p.commit(() => {
    recordChecks(ctx, item.key, outcome === 'completed', results);
    recorder.itemFinished(runId, item.key, outcome, iso(), p.message);
  });
  if (ctx.run.cleanup && p.ref !== undefined) await deleteConversation({ runId, recorder, client: ctx.target.client, log }, item.key, p.ref);
  return {
    outcome,
    credits: asked.some((t) => t.stats?.credits !== undefined) ? asked.reduce((sum, t) => sum + (t.stats?.credits ?? 0), 0) : null,
    passed: results.filter((r) => r.passed).length,
    failed: results.filter((r) => !r.passed).length,
    turns: asked,
  };
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

