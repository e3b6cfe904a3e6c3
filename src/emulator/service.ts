import type { FakeAgent } from './agent.js';
import type { FailureKind, Outcome } from './outcome.js';
import type { VirtualClock } from './clock.js';
import type { QuotaLedger, QuotaUsage } from './quota.js';
import {
  isProcessing,
  lastQuestion,
  type ConversationRecord,
  type ConversationStore,
  type QuestionEnd,
  type QuestionRecord,
} from './store.js';
import type { SortKeys, SortName } from './listing.js';
import { zeroUsage } from './usage.js';

export const MAX_QUESTION_CHARS = 100_000;

/** Flavour-neutral failures; each API maps them to its own status and body. */
export type DomainErrorKind = 'invalid' | 'not_found' | 'busy';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export interface QuestionRecordView {
  conversationId: number;
  userId: number;
  questionId: number;
  questionIndex: number;
  text: string;
  createdAtVirtualMs: number;
  endedAtVirtualMs: number | undefined;
  /** Sampled processing time, virtual (unscaled) ms. */
  processingMs: number;
  outcome: 'processing' | 'completed' | FailureKind;
}

export interface ServiceDeps {
  store: ConversationStore;
  agent: FakeAgent;
  quota: QuotaLedger;
  clock: VirtualClock;
  sharingEnabled: boolean;
  rateLimitRetryMs: number;
}

/**
 * The conversation state machine shared by both API flavours. Questions finish lazily: every
 * operation first settles the questions whose virtual due time has passed, so no timers exist.
 * The virtual clock is held at the due time of an answer still being worked out (its searches take
 * real time), so every answer ends exactly at its due time whatever the machine's load.
 */
export class ConversationService {
  private readonly processing = new Set<QuestionRecord>();
  /** The item key a client named when it created a conversation (see ITEM_KEY_HEADER). */
  private readonly itemKeys = new WeakMap<ConversationRecord, string>();

  constructor(private readonly deps: ServiceDeps) {
    deps.clock.holdAt(() => {
      let earliest: number | undefined;
      for (const q of this.processing) if (!q.ready && (earliest === undefined || dueAt(q) < earliest)) earliest = dueAt(q);
      return earliest;
    });
  }

  /** `itemKey` names the client's item, so its answers are drawn for it whatever the order questions arrive in. */
  ask(userId: number, text: string, itemKey?: string): ConversationRecord {
    validateQuestion(text);
    const now = this.settle();
    const conversation = this.deps.store.createConversation(userId, now);
    if (itemKey !== undefined) this.itemKeys.set(conversation, itemKey);
    this.startQuestion(conversation, text, now);
    return conversation;
  }

  followUp(userId: number, conversationId: number, text: string): QuestionRecord {
    validateQuestion(text);
    const now = this.settle();
    const conversation = this.owned(userId, conversationId);
    if (isProcessing(conversation)) {
      throw new DomainError('busy', 'a question of this conversation is still processing');
    }
    return this.startQuestion(conversation, text, now);
  }

  get(userId: number, conversationId: number): ConversationRecord {
    this.settle();
    return this.owned(userId, conversationId);
  }

  /** Cancels the given question, or the processing one; a finished question stays as it is. */
  cancel(userId: number, conversationId: number, questionId?: number): ConversationRecord {
    const now = this.settle();
    const conversation = this.owned(userId, conversationId);
    const question =
      questionId === undefined
        ? lastQuestion(conversation)
        : conversation.questions.find((q) => q.id === questionId);
    if (!question) throw new DomainError('not_found', 'question not found');
    if (!question.end) {
      const usage = zeroUsage(now - question.createdAtMs);
      this.finish(question, now, { kind: 'failed', failure: 'cancelled', usage });
    }
    return conversation;
  }

  remove(userId: number, conversationId: number): void {
    this.settle();
    const conversation = this.owned(userId, conversationId);
    conversation.deleted = true;
    for (const q of conversation.questions) this.processing.delete(q);
  }

  /**
   * The user's own conversations, plus the one a read token names when sharing allows, in the sort's
   * order after the cursor; read lazily, so a page reads little more than itself.
   */
  *visible(userId: number, sort: SortName, after: SortKeys | undefined, readToken?: string): Generator<ConversationRecord> {
    this.settle();
    for (const c of this.deps.store.inOrder(sort, after)) {
      if (c.deleted) continue;
      if (c.userId === userId || (readToken !== undefined && this.deps.sharingEnabled && c.readToken === readToken)) yield c;
    }
  }

  /**
   * The user's own conversations whose title or a question's text contains `needle` (lower-cased, not
   * empty), by last update, newest first, after the cursor; read from the content index, lazily.
   */
  *visibleContaining(userId: number, needle: string, after: SortKeys | undefined): Generator<ConversationRecord> {
    this.settle();
    for (const c of this.deps.store.containing(needle, after)) if (!c.deleted && c.userId === userId) yield c;
  }

  /** The lower-cased title and question texts a content query searches. */
  contentOf(conversation: ConversationRecord): readonly string[] {
    return this.deps.store.contentOf(conversation);
  }

  /** Cursors may name a deleted conversation; only its sort keys are used. */
  cursorTarget(conversationId: number): ConversationRecord | undefined {
    return this.deps.store.getIncludingDeleted(conversationId);
  }

  quotaUsage(userId: number): QuotaUsage {
    return this.deps.quota.usage(userId, this.settle());
  }

  questionRecords(): QuestionRecordView[] {
    this.settle();
    return this.deps.store.all().flatMap((c) =>
      c.questions.map((q) => ({
        conversationId: c.id,
        userId: c.userId,
        questionId: q.id,
        questionIndex: q.index,
        text: q.text,
        createdAtVirtualMs: q.createdAtMs,
        endedAtVirtualMs: q.end?.atMs,
        processingMs: q.processingMs,
        outcome: q.end ? outcomeName(q.end.outcome) : 'processing',
      })),
    );
  }

  /** Applies every outcome that is due, in due order so quota charges happen in time order. */
  settle(): number {
    const now = this.deps.clock.now();
    const due = [...this.processing]
      .filter((q) => q.ready && dueAt(q) <= now)
      .sort((a, b) => dueAt(a) - dueAt(b) || a.id - b.id);
    for (const q of due) if (q.ready) this.finish(q, dueAt(q), q.ready);
    return now;
  }

  private startQuestion(conversation: ConversationRecord, text: string, now: number): QuestionRecord {
    const history = conversation.questions.map((q) => q.text);
    const run = this.deps.agent.start(text, history, this.deps.quota.exhausted(conversation.userId, now), this.itemKeys.get(conversation));
    const question = this.deps.store.addQuestion(conversation, text, now, run.processingMs);
    this.processing.add(question);
    void run.outcome.then((outcome) => {
      question.ready = outcome;
    });
    return question;
  }

  private finish(question: QuestionRecord, atMs: number, outcome: Outcome): void {
    const conversation = this.deps.store.getIncludingDeleted(question.conversationId);
    if (!conversation) return;
    this.processing.delete(question);
    const end: QuestionEnd = { atMs, outcome };
    const retryAtMs = this.retryAt(conversation.userId, atMs, outcome);
    if (retryAtMs !== undefined) end.retryAtMs = retryAtMs;
    question.end = end;
    this.deps.quota.charge(conversation.userId, outcome.usage.credits, atMs);
    this.deps.store.touch(conversation, atMs);
  }

  private retryAt(userId: number, atMs: number, outcome: Outcome): number | undefined {
    if (outcome.kind !== 'failed') return undefined;
    switch (outcome.failure) {
      case 'quota-exceeded':
      case 'entitlement-exceeded':
        return this.deps.quota.usage(userId, atMs).resetAtMs;
      case 'rate-limited':
        return atMs + this.deps.rateLimitRetryMs;
      default:
        return undefined;
    }
  }

  /** Other users' conversations are reported missing, never forbidden, so ids do not leak. */
  private owned(userId: number, conversationId: number): ConversationRecord {
    const conversation = this.deps.store.get(conversationId);
    if (!conversation || conversation.userId !== userId) {
      throw new DomainError('not_found', `conversation ${conversationId} not found`);
    }
    return conversation;
  }
}

function dueAt(question: QuestionRecord): number {
  return question.createdAtMs + question.processingMs;
}

function outcomeName(outcome: Outcome): 'completed' | FailureKind {
  return outcome.kind === 'completed' ? 'completed' : outcome.failure;
}

function validateQuestion(text: string): void {
  if (text.trim() === '') throw new DomainError('invalid', 'question must not be empty');
  if (text.length > MAX_QUESTION_CHARS) {
    throw new DomainError('invalid', `question must not exceed ${MAX_QUESTION_CHARS} characters`);
  }
}
