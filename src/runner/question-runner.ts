import type { ResolvedQuestion } from '../config/resolve-suite.js';
import type { DeepSearchClient } from '../deepsearch/client.js';
import type { ConversationSet } from '../deepsearch/names.js';
import { isLimitError, questionAt, TERMINAL_STATES, type Conversation, type Question } from '../model/conversation.js';
import { ITEM_KEY_HEADER } from '../emulator-identity.js';
import { waitForQuestion } from '../deepsearch/wait.js';
import { conversationsSince, walkFloor, type WalkStats } from './conversation-walk.js';
import type { LandingWatch } from './landing-watch.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { AbortedError, DsbenchError, HttpStatusError, OutcomeUnknownError, StorageError } from '../errors/errors.js';
import { linkedSignal } from '../http/linked-signal.js';
import { redact } from '../http/redact.js';
import { deleteConversation } from './cleanup.js';
import { noteServedByEmulator, type EmulatorNoted } from './emulator-note.js';
import { evaluateQuestion } from './expectations.js';
import type { AdaptivePollSchedule } from './poll-schedule.js';
import { ItemClock, serverDuration } from './item-clock.js';
import type { ItemOutcome, TurnRecord } from '../model/item.js';
import type { Recorder } from './recorder.js';
import type { ResumeItem, ResumeTurn } from '../model/run.js';
import type { CreatesInFlight } from './creates-in-flight.js';
import type { ServerClock } from './server-clock.js';
import type { ItemSlot } from './slots.js';
import { CANCELLED_ON_INTERRUPT } from './stopped.js';
import type { TargetGate } from './target-gate.js';

export interface QuestionContext {
  runId: number;
  recorder: Recorder;
  client: DeepSearchClient;
  schedule: AdaptivePollSchedule;
  gate: TargetGate;
  /**
   * Conversations owned by items of this run on this target (shared by its items): a send whose outcome
   * is unknown must not be matched to another item's conversation, e.g. another repeat of the same text,
   * whatever user segment the server wrote in its name.
   */
  claimed: ConversationSet;
  /** This target's creates whose reply has not come back yet: a lookup waits for them before it takes an unclaimed conversation. */
  creates: CreatesInFlight;
  /** This target's walks of the texts whose creates were lost, shared by their lookups and the end-of-run check. */
  landings: LandingWatch;
  /** Delete the conversation once its result is recorded. */
  cleanup: boolean;
  /** Aborts waiting: what is processing is then cancelled on the server. */
  signal: AbortSignal;
  /** Real time per server time (below 1 only for a faster emulator): its timeouts are judged on the server's clock. */
  timeScale: number;
  /** An emulator: each new conversation names its item (ITEM_KEY_HEADER), so its answers do not depend on arrival order. */
  emulated: boolean;
  /** The target's clock, from its replies' Date headers: lost sends are looked for on it. */
  clock: ServerClock;
  /** Whether this run already recorded that the target's replies come from a dsbench emulator. */
  emulatorNoted: EmulatorNoted;
  /**
   * How long after it was sent a request may still reach the server (the request timeout of whichever
   * process sent it): a turn not found before then may still be landing, so it is looked for again first.
   */
  sendWindowMs: number;
  /**
   * Local epoch ms by which the run's earlier processes had given up all their sends (they released the
   * run or are gone), when known: a resumed send was given up then at the latest, if its timeout had not
   * run out before.
   */
  earlierSendsGivenUpBy?: number | undefined;
  /**
   * The item's concurrency slot: given up while a send not found waits out its window (only a create still
   * in flight on the server then can land late), and while a send waits to be retried after an attempt
   * the server did not act on (nothing of it is on the server); taken again before the next request.
   */
  slot?: ItemSlot | undefined;
  /**
   * First questions whose create was given up with its outcome unknown, by text, with the earliest such send
   * (local epoch ms): the run looks for late landings of these texts at its end.
   */
  lostCreates: Map<string, number>;
  log: (message: string) => void;
}

export interface QuestionItem {
  key: string;
  target: string;
  question: ResolvedQuestion;
}

export interface ItemSummary {
  outcome: ItemOutcome;
  /** Null when the API reported no credits (the versioned API has no stats). */
  credits: number | null;
  passed: number;
  failed: number;
  /** A conversation's turns as recorded, in order, for grading. */
  turns?: readonly TurnRecord[] | undefined;
}

// A busy run formats several dates per question, many within one millisecond: reuse the last string.
let lastMs = Number.NaN;
let lastIso = '';
const iso = () => {
  const now = Date.now();
  if (now !== lastMs) [lastMs, lastIso] = [now, new Date(now).toISOString()];
  return lastIso;
};

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
 * conversation, never asked again.
 */
export async function runQuestion(ctx: QuestionContext, item: QuestionItem, resume?: ResumeItem): Promise<ItemSummary> {
  const { recorder, runId } = ctx;
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
  const clock = new ItemClock(item.question.timeoutMs, ctx.timeScale, turns.reduce((sum, t) => sum + (t?.serverMs ?? 0), 0));
  // Requests of the item retry transient failures until its wall-clock bound (with a little grace, so
  // the last poll at the timeout is not cut short), or until the run is aborted.
  const limit = linkedSignal(ctx.signal, clock.wallLimitMs + Math.max(1000, clock.wallLimitMs / 10));
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
          if (current === 0) noteLostCreate(ctx, item, text, start.sentAt);
          // The earlier process gave the send up at the latest when its request timeout ran out, or when it
          // ended; one of unknown time, by when this process took the run over, or else now.
          const sent = Date.parse(start.sentAt ?? '');
          const givenUpAt = Number.isNaN(sent)
            ? (ctx.earlierSendsGivenUpBy ?? Date.now())
            : Math.min(sent + ctx.sendWindowMs, ctx.earlierSendsGivenUpBy ?? Infinity);
          const looked = await findWithinWindow(ctx, item, ref, current, text, start.sentAt, givenUpAt, until);
          if (looked.ref !== undefined) [ref, resumed] = [looked.ref, true];
          else ctx.log(`${item.key}: ${looked.said}; turn ${current} is not on the server and its send can no longer land: asking it`);
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
        const followed = await follow(ctx, item, ref as string, current, text, sentAt, sentClock, clock, until);
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
      if (ctx.signal.aborted) {
        await cancelOnServer(ctx, ref, item);
        message = CANCELLED_ON_INTERRUPT;
        turns[current] = { state: 'canceled', text, clientError: message, polls: 0 };
      } else if (error instanceof AbortedError) {
        // The item's own timeout passed while a request was still being retried.
        await cancelOnServer(ctx, ref, item);
        message = `no answer within ${formatTimeout(item.question.timeoutMs)} (requests were still failing); cancelled on the server`;
        turns[current] = { state: 'timeout', text, clientError: message, polls: 0 };
      } else if (following && ref !== undefined && !(error instanceof HttpStatusError && error.status === 404)) {
        // The question is on the server and its outcome unobserved: kept for a resume to re-poll, never re-asked.
        message = redact(error instanceof Error ? error.message : String(error));
        if (error instanceof HttpStatusError && (error.status === 401 || error.status === 403)) ctx.gate.fail(message);
        ctx.log(`${item.key}: ${message}; conversation ${ref} is kept unfinished: dsbench run --resume ${runId} re-polls it`);
        commit(() => recorder.itemUnobserved(runId, item.key, message as string));
        return { outcome: 'client_error', credits: null, passed: 0, failed: 0 };
      } else {
        message = redact(error instanceof Error ? error.message : String(error));
        if (error instanceof HttpStatusError && (error.status === 401 || error.status === 403)) ctx.gate.fail(message);
        turns[current] = { state: 'client_error', text, clientError: message, polls: 0 };
      }
      const failed = turns[current] as TurnRecord;
      ended = () => recorder.recordTurn(runId, item.key, current, failed);
    }

    const asked = turns.filter(Boolean);
    const outcome = outcomeOf(asked[asked.length - 1]);
    const results = evaluateQuestion(item.question.expect, item.question.followups, asked);
    commit(() => {
      if (results.length > 0) recorder.recordExpectations(runId, item.key, results);
      recorder.itemFinished(runId, item.key, outcome, iso(), message);
    });
    if (ctx.cleanup && ref !== undefined) await deleteConversation(ctx, item.key, ref);
    return {
      outcome,
      credits: asked.some((t) => t.stats) ? asked.reduce((sum, t) => sum + (t.stats?.credits ?? 0), 0) : null,
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

/**
 * Sends turn `index`; returns the conversation's ref, or undefined when the send provably did not act (not
 * on the server once its window passed) and may be sent again. A send whose outcome is unknown (the
 * connection broke after it was sent, or a 5xx that may come from after the server acted) is looked for
 * first; during an abort, once, and never sent again.
 *
 * Each attempt is recorded as `sending` as it starts, with a send time its request timeout cannot precede
 * (`sending.at`): earlier attempts provably did not act, and a resume waits out the window of the last one.
 */
async function send(
  ctx: QuestionContext,
  item: QuestionItem,
  ref: string | undefined,
  index: number,
  text: string,
  sending: { at: string },
  recordSending: () => void,
  until: AbortSignal,
): Promise<string | undefined> {
  const { recorder, runId, client } = ctx;
  const onAttempt = () => {
    sending.at = iso();
    recordSending();
  };
  try {
    if (index === 0) {
      const headers = ctx.emulated ? { headers: { [ITEM_KEY_HEADER]: item.key } } : {};
      const settled = ctx.creates.begin(text);
      let conversation: Conversation;
      try {
        conversation = await client.create(text, { signal: until, persistent: true, onAttempt, idle: ctx.slot, ...headers });
        ctx.claimed.add(conversation.ref);
      } finally {
        settled();
      }
      ctx.clock.observe(conversation.serverDate);
      await recordedOrCancelled(ctx, item, conversation.ref, undefined, () =>
        recorder.inOneCommit(() => {
          recorder.conversationCreated(runId, item.key, conversation.ref, iso());
          noteServedByEmulator(recorder, runId, item.target, ctx.emulatorNoted, conversation.servedByEmulator);
          recorder.recordTurn(runId, item.key, 0, { state: 'processing', text, polls: 0, ...serverTimes(conversation.questions[0], conversation) });
        }),
      );
      return conversation.ref;
    }
    const added = await client.addQuestion(ref as string, text, { signal: until, persistent: true, onAttempt, idle: ctx.slot });
    await recordedOrCancelled(ctx, item, ref as string, added.id, () =>
      recorder.recordTurn(runId, item.key, index, { state: 'processing', text, questionId: added.id, polls: 0 }),
    );
    return ref as string;
  } catch (error) {
    const unknown = error instanceof OutcomeUnknownError || (error instanceof HttpStatusError && error.status >= 500);
    if (!unknown) throw error;
    const givenUpAt = Date.now();
    if (index === 0) noteLostCreate(ctx, item, text, sending.at);
    ctx.log(`${item.key}: ${error.message}`);
    if (ctx.signal.aborted) {
      // Looked for even when the run is aborting (with a deadline of its own), so that what is found is cancelled.
      const looked = await findSent(ctx, item, ref, index, text, sending.at, AbortSignal.timeout(10_000)).catch(() => undefined);
      if (looked?.ref === undefined) ctx.log(`${item.key}: no conversation was found for it; if one was created it may still be running: see dsbench conversations list`);
      if (looked?.ref === undefined) throw error;
      return looked.ref;
    }
    const looked = await findWithinWindow(ctx, item, ref, index, text, sending.at, givenUpAt, until);
    if (looked.ref === undefined) ctx.log(`${item.key}: ${looked.said}; turn ${index} is not on the server ${seconds(ctx.sendWindowMs)} after its attempt failed: it did not act; asking it again`);
    return looked.ref;
  }
}

/**
 * Looks for a turn that may have been sent at `sentAt` and given up (its attempt failed, or its process
 * died) at local epoch ms `givenUpAt`; not found while its send could still be landing, waits out the window
 * and looks once more, through every conversation listed since the send. The window runs a request timeout
 * from when the send was given up, not from when it was sent: a request that timed out was still unread
 * somewhere (a busy server, a proxy's queue) when the client stopped waiting, and may be acted on after that.
 * What it saw before waiting is logged in one line with the wait; what the last look saw is returned for
 * the caller's line with what it decided: a run under faults logs three lines per lost send, not five.
 */
async function findWithinWindow(
  ctx: QuestionContext,
  item: QuestionItem,
  ref: string | undefined,
  index: number,
  text: string,
  sentAt: string | undefined,
  givenUpAt: number,
  signal: AbortSignal,
): Promise<Looked> {
  const sent = Date.parse(sentAt ?? '');
  const windowEnd = (Number.isNaN(sent) ? givenUpAt : Math.max(sent, givenUpAt)) + ctx.sendWindowMs;
  if (windowEnd - Date.now() > 0) {
    // Still landing, this look is only a shortcut (a create that acted is newest, on the first page): the
    // look after the window is the one that decides.
    const first = await findSent(ctx, item, ref, index, text, sentAt, signal, LOOKUP_FIRST_PAGE);
    if (first.ref !== undefined) return first;
    const waitMs = windowEnd - Date.now();
    if (waitMs <= 0) ctx.log(`${item.key}: ${first.said}`);
    else {
      ctx.log(`${item.key}: ${first.said}; turn ${index} is not on the server yet, but its send could still be landing: looking again in ${seconds(waitMs)}`);
      // Waiting asks nothing of the server: another item runs in the slot meanwhile.
      ctx.slot?.leave();
      try {
        await sleep(waitMs, undefined, { signal });
      } catch {
        throw new AbortedError(`${item.key}: waiting for a send to land aborted`);
      }
      await ctx.slot?.retake(signal);
    }
  }
  if (ref !== undefined) return findSent(ctx, item, ref, index, text, sentAt, signal);
  return findLanded(ctx, item, text, Date.parse(sentAt ?? ''), windowEnd, signal);
}

/** What a look found (`ref`), and what it saw, for the log. */
interface Looked {
  ref: string | undefined;
  said: string;
}

/**
 * Conversations per page of a lookup; its first page is small: a create that acted is among the newest,
 * and a walk often ends at once (its conversations older than the send), so most lookups need only a few.
 */
const LOOKUP_FIRST_PAGE = 10;
const LOOKUP_PAGE = 50;

/**
 * Looks on the server for a turn that may have been sent: the conversation's questions (a follow-up), or
 * the pages of conversations, newest first, until they are provably older than the send on the server's
 * clock or `most` were read (a create).
 */
async function findSent(
  ctx: QuestionContext,
  item: QuestionItem,
  ref: string | undefined,
  index: number,
  text: string,
  sentAt: string | undefined,
  signal: AbortSignal,
  most = Infinity,
): Promise<Looked> {
  const { client } = ctx;
  if (index > 0 && ref !== undefined) {
    const conversation = await client.get(ref, { signal, persistent: true });
    ctx.clock.observe(conversation.serverDate);
    const found = conversation.questions[index]?.text === text;
    const said = `follow-up ${index} ${found ? 'is' : 'is not'} in conversation ${ref}`;
    if (found) ctx.log(`${item.key}: ${said}`);
    return { ref: found ? ref : undefined, said };
  }
  if (ref !== undefined) return { ref, said: `conversation ${ref}` };
  const walk: WalkStats = { read: 0, looked: 0, since: undefined };
  const options = { sentLocal: Date.parse(sentAt ?? ''), contentQuery: client.api === 'versioned' ? text.slice(0, 200) : undefined, skip: ctx.claimed, signal, pageSize: LOOKUP_PAGE, firstPageSize: LOOKUP_FIRST_PAGE, most };
  const found = await takeUnclaimed(ctx, item, text, conversationsSince(client, ctx.clock, options, walk));
  const back = walk.read === most ? `among the newest ${most}` : walk.since === undefined ? 'through every page' : `back to ${new Date(walk.since).toISOString()} on the server's clock`;
  return { ref: found, said: `looked at ${walk.looked} conversations ${back}: none is this question` };
}

/**
 * The look that decides whether a create sent at local epoch ms `sentLocal` landed: the conversations of its
 * text no item owns, listed since the send, as a walk begun once the send could no longer land (at
 * `notBefore`) left them. The target's walks of the text are shared (`LandingWatch`).
 */
async function findLanded(ctx: QuestionContext, item: QuestionItem, text: string, sentLocal: number, notBefore: number, signal: AbortSignal): Promise<Looked> {
  const listed = await ctx.landings.unowned(text, sentLocal, notBefore, signal);
  let looked = 0;
  const read = async function* () {
    for (const { summary } of listed) {
      if (ctx.claimed.has(summary.ref)) continue;
      looked++;
      const conversation = await ctx.client.get(summary.ref, { signal, persistent: true });
      ctx.clock.observe(conversation.serverDate);
      yield conversation;
    }
  };
  const found = await takeUnclaimed(ctx, item, text, read());
  const since = walkFloor(ctx.clock, sentLocal);
  const back = since === undefined ? 'through every page' : `back to ${new Date(since).toISOString()} on the server's clock`;
  return { ref: found, said: `looked at ${looked} conversations ${back}: none is this question` };
}

/** Takes the first of `conversations` that asks only `text` and that no item claimed, for `item`. */
async function takeUnclaimed(ctx: QuestionContext, item: QuestionItem, text: string, conversations: AsyncIterable<Conversation>): Promise<string | undefined> {
  for await (const conversation of conversations) {
    if (conversation.questions[0]?.text === text && conversation.questions.length === 1) {
      // A create of the same text (another repeat) still waiting for its reply may own it: it claims it first.
      await ctx.creates.settled(text);
      if (ctx.claimed.has(conversation.ref)) continue;
      ctx.log(`${item.key}: found conversation ${conversation.ref} sent before the interruption; following it instead of asking again`);
      ctx.claimed.add(conversation.ref);
      ctx.recorder.conversationCreated(ctx.runId, item.key, conversation.ref, iso());
      return conversation.ref;
    }
  }
  return undefined;
}

/**
 * Any lost create of a text, not only one asked again: a lookup of another repeat may have taken its late
 * landing, and that repeat's own send then lands unowned. Only first questions: a follow-up asked twice
 * would be a question more in the item's own conversation.
 */
function noteLostCreate(ctx: QuestionContext, item: QuestionItem, text: string, sentAt: string | undefined): void {
  const at = Date.parse(sentAt ?? '');
  const earliest = ctx.lostCreates.get(text);
  if (earliest !== undefined && !(at < earliest) && !Number.isNaN(earliest)) return;
  ctx.lostCreates.set(text, at);
  // Committed before the create is looked for or sent again: a resume checks it at its end too.
  if (sentAt !== undefined && !Number.isNaN(at)) ctx.recorder.lostCreate(ctx.runId, item.target, text, sentAt);
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms < 10_000 ? 1 : 0))} s`;
}

/**
 * Polls turn `index` until it ends or the item's time is up; records each change of state as it is seen,
 * except the end: that is returned as `record`, for the caller to commit with what it writes next, before
 * any other request (a timed-out turn is recorded here, after its cancel request).
 */
async function follow(
  ctx: QuestionContext,
  item: QuestionItem,
  ref: string,
  index: number,
  text: string,
  sentAt: string,
  sentClock: number,
  clock: ItemClock,
  until: AbortSignal,
): Promise<{ turn: TurnRecord; record?: () => void }> {
  const { recorder, runId, client } = ctx;
  let lastState: string | undefined;
  const tracker = ctx.schedule.track();
  let waited: Awaited<ReturnType<typeof waitForQuestion>>;
  try {
    waited = await waitForQuestion(client, ref, index, {
      schedule: tracker.next,
      timeoutMs: clock.timeoutMs,
      clock: clock.forTurn(),
      signal: until,
      persistent: true,
      onPoll: (conversation) => {
        const question = questionAt(conversation, index);
        ctx.clock.observe(conversation.serverDate);
        if (question && question.rawState !== lastState && !TERMINAL_STATES.has(question.state)) {
          lastState = question.rawState;
          recorder.recordTurn(runId, item.key, index, { ...turnOf(question, conversation, text, sentAt), polls: 0 });
        }
      },
    });
  } catch (error) {
    tracker.finish(undefined);
    throw error;
  }
  const wallMs = Math.round(performance.now() - sentClock);
  const observedEndAt = iso();
  if (waited.timedOut) {
    // Ended after the item's time was up (judged on the server's clock, whose answer came late): nothing to cancel.
    const late = waited.question !== undefined && TERMINAL_STATES.has(waited.question.state);
    tracker.finish(late ? serverDuration(waited.question as Question, waited.conversation) : undefined);
    if (!late) await cancelOnServer(ctx, ref, item, waited.question?.id);
    const turn: TurnRecord = {
      ...(waited.question ? turnOf(waited.question, waited.conversation, text, sentAt) : { text, sentAt }),
      state: 'timeout',
      polls: waited.polls,
      wallMs,
      observedEndAt,
      clientError: late
        ? `no answer within ${formatTimeout(item.question.timeoutMs)}: it ended after ${formatTimeout(Math.round(waited.ranMs))} of the item's time on the server's clock`
        : `no answer within ${formatTimeout(item.question.timeoutMs)}; cancelled on the server`,
    };
    recorder.recordTurn(runId, item.key, index, turn);
    return { turn };
  }
  const question = waited.question as Question;
  const turn: TurnRecord = { ...turnOf(question, waited.conversation, text, sentAt), polls: waited.polls, wallMs, observedEndAt };
  const quota = waited.conversation.quotaUsage;
  const record = () => {
    recorder.recordTurn(runId, item.key, index, turn);
    if (quota) recorder.quotaSnapshot(runId, item.target, quota, observedEndAt);
  };
  clock.spend(turn.serverMs);
  if (question.anomalies) ctx.log(`${item.key} turn ${index + 1}: stats that cannot be true, left out of sums: ${question.anomalies.join(', ')}`);
  tracker.finish(turn.serverMs);
  if (question.error && isLimitError(question.error.code)) {
    const serverNow = Date.parse(waited.conversation.serverDate ?? '');
    const decision = ctx.gate.onQuotaError(question.error, waited.conversation.quotaUsage, Number.isNaN(serverNow) ? undefined : serverNow);
    if (decision) ctx.log(decision);
  }
  return { turn, record };
}

/** `300 ms`, `2.5 s`, `300 s`: a sub-second timeout must not read as `0 s`. */
function formatTimeout(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

function turnOf(question: Question, conversation: Conversation, text: string, sentAt: string): Omit<TurnRecord, 'polls'> {
  return {
    state: question.state,
    text,
    questionId: question.id,
    error: question.error,
    title: question.title,
    answer: question.answer,
    partial: question.partial,
    sources: question.sources,
    suggestedFollowups: question.suggestedFollowups,
    stats: question.stats,
    anomalies: question.anomalies,
    sentAt,
    ...serverTimes(question, conversation),
  };
}

/**
 * Latency as the server measured it, so it does not depend on when dsbench polled: legacy
 * `stats.time_millis`; otherwise the question's creation to the conversation's last update.
 */
function serverTimes(question: Question | undefined, conversation: Conversation): Partial<TurnRecord> {
  const created = question?.createdAt ?? (question?.index === 0 ? conversation.createdAt : undefined);
  const updated = question?.updatedAt ?? conversation.updatedAt;
  const times: Partial<TurnRecord> = { serverCreatedAt: created, serverUpdatedAt: updated };
  if (!question || question.state === 'processing') return times;
  const ms = serverDuration(question, conversation);
  if (ms === undefined) return times;
  return { ...times, serverMs: ms, serverMsSource: question.stats && question.stats.timeMillis > 0 ? 'stats.time_millis' : 'timestamps' };
}

/**
 * Records a question the server just took; when the store failed, cancels it before the storage error
 * goes on: no record would show it, and nothing else would stop it.
 */
async function recordedOrCancelled(ctx: QuestionContext, item: QuestionItem, ref: string, questionId: string | undefined, record: () => void): Promise<void> {
  try {
    record();
  } catch (error) {
    if (!(error instanceof StorageError)) throw error;
    ctx.log(`${item.key}: ${ref} was asked but could not be recorded: cancelling it on the server`);
    await cancelOnServer(ctx, ref, item, questionId);
    throw error;
  }
}

/** Best effort, with its own deadline: the run's signal may already be aborted. */
async function cancelOnServer(ctx: QuestionContext, ref: string | undefined, item: QuestionItem, questionId?: string): Promise<void> {
  if (ref === undefined) return;
  // Not for a run another process took over: its questions are that process's (this throws, ending the run).
  ctx.recorder.assertHeld();
  try {
    // Sent even when the store failed: the run stops, and nothing should keep running on the server for it.
    await ctx.client.cancel(ref, questionId, { signal: AbortSignal.timeout(30_000), persistent: true, cleanup: true });
  } catch (error) {
    ctx.log(`${item.key}: could not cancel ${ref} on the server: ${error instanceof DsbenchError ? error.message : String(error)}`);
  }
}
