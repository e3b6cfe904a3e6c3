import { randomUUID } from 'node:crypto';
import type { Outcome } from './outcome.js';
import { ContentIndex, SortIndex, type SortKeys, type SortName } from './listing.js';

export interface QuestionEnd {
  atMs: number;
  outcome: Outcome;
  /** When the client may try again (quota, entitlement and rate-limit failures). */
  retryAtMs?: number;
}

export interface QuestionRecord {
  readonly id: number;
  readonly conversationId: number;
  /** 0-based position in its conversation. */
  readonly index: number;
  readonly text: string;
  readonly createdAtMs: number;
  /** Sampled processing time, virtual ms. */
  readonly processingMs: number;
  /** Set when the agent's run resolved; becomes `end` once virtual time reaches its due time. */
  ready?: Outcome;
  end?: QuestionEnd;
}

export interface ConversationRecord {
  readonly id: number;
  readonly userId: number;
  readonly readToken: string;
  readonly createdAtMs: number;
  updatedAtMs: number;
  starred: boolean;
  /** Deleted conversations stay as tombstones so list cursors that name them keep working. */
  deleted: boolean;
  readonly questions: QuestionRecord[];
}

/** Ids start where the documented example does; separate sequences keep them from coinciding. */
const FIRST_CONVERSATION_ID = 140;
const FIRST_QUESTION_ID = 163;

/** In-memory conversations of all users. */
export class ConversationStore {
  private readonly conversations = new Map<number, ConversationRecord>();
  private readonly index = new SortIndex<ConversationRecord>();
  private readonly content = new ContentIndex<ConversationRecord>();
  private nextConversationId = FIRST_CONVERSATION_ID;
  private nextQuestionId = FIRST_QUESTION_ID;

  createConversation(userId: number, atMs: number): ConversationRecord {
    const conversation: ConversationRecord = {
      id: this.nextConversationId++,
      userId,
      readToken: randomUUID(),
      createdAtMs: atMs,
      updatedAtMs: atMs,
      starred: false,
      deleted: false,
      questions: [],
    };
    this.conversations.set(conversation.id, conversation);
    this.index.add(conversation);
    return conversation;
  }

  addQuestion(conversation: ConversationRecord, text: string, atMs: number, processingMs: number): QuestionRecord {
    const question: QuestionRecord = {
      id: this.nextQuestionId++,
      conversationId: conversation.id,
      index: conversation.questions.length,
      text,
      createdAtMs: atMs,
      processingMs,
    };
    conversation.questions.push(question);
    this.touch(conversation, atMs);
    return question;
  }

  /** A live conversation. */
  get(id: number): ConversationRecord | undefined {
    const conversation = this.conversations.get(id);
    return conversation && !conversation.deleted ? conversation : undefined;
  }

  /** Any conversation ever created, deleted ones included. */
  getIncludingDeleted(id: number): ConversationRecord | undefined {
    return this.conversations.get(id);
  }

  /** A change of the conversation at `atMs` (a question added or ended): its update time moves on (never back). */
  touch(conversation: ConversationRecord, atMs: number): void {
    this.index.touch(conversation, Math.max(conversation.updatedAtMs, atMs));
    const title = conversationTitle(conversation);
    this.content.index(conversation, [...(title ? [title] : []), ...conversation.questions.map((q) => q.text)].map((t) => t.toLowerCase()));
  }

  /** Conversations (deleted ones included) after the cursor in the sort's order, lazily, from the index. */
  inOrder(sort: SortName, after: SortKeys | undefined): Iterable<ConversationRecord> {
    return this.index.after(sort, after);
  }

  /**
   * Conversations (deleted ones included) whose title or a question's text contains `needle` (lower-cased,
   * not empty), by last update, newest first, strictly after the cursor; lazily, reading only those.
   */
  containing(needle: string, after: SortKeys | undefined): Iterable<ConversationRecord> {
    return this.content.matching(needle, after);
  }

  /** The lower-cased title and question texts a content query searches. */
  contentOf(conversation: ConversationRecord): readonly string[] {
    return this.content.textsOf(conversation);
  }

  all(): ConversationRecord[] {
    return [...this.conversations.values()];
  }
}

/**
 * The conversation's title: that of its first answer (a partial one too), else, once a question was worked
 * on and failed, one made from its text, as real servers title conversations whose answer failed. A
 * question refused before any work (quota, entitlement, rate limit) or cancelled gives none.
 */
export function conversationTitle(c: ConversationRecord): string | undefined {
  for (const q of c.questions) {
    const outcome = q.end?.outcome;
    if (outcome?.kind === 'completed') return outcome.answer.title;
    if (outcome?.partial) return outcome.partial.title;
  }
  const first = c.questions[0]?.end?.outcome;
  return first?.kind === 'failed' && WORKED_ON.has(first.failure) ? titleOf(c.questions[0]!.text) : undefined;
}

const WORKED_ON: ReadonlySet<string> = new Set(['token-limit', 'internal', 'output-limit', 'output-limit-no-answer']);

/** A question's first line, at most 80 characters, cut at a word. */
function titleOf(text: string): string {
  const line = text.trim().split('\n')[0]!.trim();
  if (line.length <= 80) return line;
  const cut = line.lastIndexOf(' ', 80);
  return line.slice(0, cut > 20 ? cut : 80);
}

export function lastQuestion(conversation: ConversationRecord): QuestionRecord | undefined {
  return conversation.questions[conversation.questions.length - 1];
}

export function isProcessing(conversation: ConversationRecord): boolean {
  return conversation.questions.some((q) => !q.end);
}
