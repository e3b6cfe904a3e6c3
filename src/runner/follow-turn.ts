import { waitForQuestion } from '../deepsearch/wait.js';
import { isLimitError, questionAt, TERMINAL_STATES, type Conversation, type Question } from '../model/conversation.js';
import type { TurnRecord } from '../model/item.js';
import type { ItemContext, QuestionItem } from './item-context.js';
import { serverDuration, type ItemClock } from './item-clock.js';
import { isoNow } from './iso-now.js';
import { cancelOnServer } from './server-cancel.js';
import { traceHeaders } from './trace-requests.js';
import type { TracedRequest } from '../model/trace.js';

/** Turn `index` of `item`, sent: its conversation, its text and when it was sent (ISO, and performance.now()). */
export interface SentQuestion {
  ref: string;
  index: number;
  text: string;
  sentAt: string;
  sentClock: number;
}

/**
 * Polls a turn until it ends or the item's time is up; records each change of state as it is seen,
 * except the end: that is returned as `record`, for the caller to commit with what it writes next, before
 * any other request (a timed-out turn is recorded here, after its cancel request).
 */
export async function follow(ctx: ItemContext, item: QuestionItem, sent: SentQuestion, clock: ItemClock, until: AbortSignal): Promise<{ turn: TurnRecord; record?: () => void }> {
  const { recorder, runId, log } = ctx.run;
  const { client, recovery, gate } = ctx.target;
  const { ref, index, text, sentAt } = sent;
  let lastState: string | undefined;
  // The polls' traces not yet recorded: written with the next record of the turn.
  const polls: TracedRequest[] = [];
  const headers = traceHeaders(ctx.target.trace, item.key);
  const tracker = ctx.target.schedule.track();
  let waited: Awaited<ReturnType<typeof waitForQuestion>>;
  try {
    waited = await waitForQuestion(client, ref, index, {
      schedule: tracker.next,
      timeoutMs: clock.timeoutMs,
      clock: clock.forTurn(),
      signal: until,
      persistent: true,
      ...(headers && { headers }),
      onPoll: (conversation) => {
        const question = questionAt(conversation, index);
        recovery.observe(conversation.serverDate);
        ctx.run.events.emit({ type: 'turn-polled', key: item.key, turn: index, ref, state: question?.rawState });
        if (conversation.trace) polls.push({ operation: 'poll', ...conversation.trace });
        if (question && question.rawState !== lastState && !TERMINAL_STATES.has(question.state)) {
          lastState = question.rawState;
          recorder.recordTurn(runId, item.key, index, { ...turnOf(question, conversation, text, sentAt), polls: 0, traces: polls.splice(0) });
        }
      },
    });
  } catch (error) {
    tracker.finish(undefined);
    throw error;
  }
  const wallMs = Math.round(performance.now() - sent.sentClock);
  const observedEndAt = isoNow();
  if (waited.timedOut) {
    // Ended after the item's time was up (judged on the server's clock, whose answer came late): nothing to cancel.
    const late = waited.question !== undefined && TERMINAL_STATES.has(waited.question.state);
    tracker.finish(late ? serverDuration(waited.question as Question, waited.conversation) : undefined);
    if (!late) await cancelOnServer(ctx, item.key, ref, waited.question?.id);
    const turn: TurnRecord = {
      ...(waited.question ? turnOf(waited.question, waited.conversation, text, sentAt) : { text, sentAt }),
      state: 'timeout',
      polls: waited.polls,
      wallMs,
      observedEndAt,
      traces: polls,
      clientError: late
        ? `no answer within ${formatTimeout(item.question.timeoutMs)}: it ended after ${formatTimeout(Math.round(waited.ranMs))} of the item's time on the server's clock`
        : `no answer within ${formatTimeout(item.question.timeoutMs)}; cancelled on the server`,
    };
    turnEnded(ctx, item.key, index, turn)();
    return { turn };
  }
  const question = waited.question as Question;
  const turn: TurnRecord = { ...turnOf(question, waited.conversation, text, sentAt), polls: waited.polls, wallMs, observedEndAt, traces: polls };
  const quota = waited.conversation.quotaUsage;
  const record = () => {
    recorder.recordTurn(runId, item.key, index, turn);
    if (quota) recorder.quotaSnapshot(runId, item.target, quota, observedEndAt);
  };
  clock.spend(turn.serverMs);
  if (question.anomalies) log(`${item.key} turn ${index + 1}: stats that cannot be true, left out of sums: ${question.anomalies.join(', ')}`);
  tracker.finish(turn.serverMs);
  turnEnded(ctx, item.key, index, turn);
  if (question.error && isLimitError(question.error.code)) {
    const serverNow = Date.parse(waited.conversation.serverDate ?? '');
    const decision = gate.onQuotaError(question.error, waited.conversation.quotaUsage, Number.isNaN(serverNow) ? undefined : serverNow);
    if (decision) log(decision);
  }
  return { turn, record };
}

/** Tells the run's observers how turn `index` ended; returns the write that records it, for the caller to commit. */
export function turnEnded(ctx: ItemContext, key: string, index: number, turn: TurnRecord): () => void {
  ctx.run.events.emit({ type: 'turn-ended', key, turn: index, state: turn.state, polls: turn.polls, wallMs: turn.wallMs, serverMs: turn.serverMs });
  return () => ctx.run.recorder.recordTurn(ctx.run.runId, key, index, turn);
}

/** `300 ms`, `2.5 s`, `300 s`: a sub-second timeout must not read as `0 s`. */
export function formatTimeout(ms: number): string {
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
export function serverTimes(question: Question | undefined, conversation: Conversation): Partial<TurnRecord> {
  const created = question?.createdAt ?? (question?.index === 0 ? conversation.createdAt : undefined);
  const updated = question?.updatedAt ?? conversation.updatedAt;
  const times: Partial<TurnRecord> = { serverCreatedAt: created, serverUpdatedAt: updated };
  if (!question || question.state === 'processing') return times;
  const ms = serverDuration(question, conversation);
  if (ms === undefined) return times;
  return { ...times, serverMs: ms, serverMsSource: (question.stats?.timeMillis ?? 0) > 0 ? 'stats.time_millis' : 'timestamps' };
}
