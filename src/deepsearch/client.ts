import type { Idle } from '../http/transport.js';
import type { ApiFlavour } from '../model/api-flavour.js';
import type { Conversation, ConversationSummary, Question, TraceRef } from '../model/conversation.js';

/** List options of both flavours; an option the chosen flavour lacks is a usage error, not silently ignored. */
export interface ListOptions {
  pageSize?: number;
  /** The first page's size (default `pageSize`): smaller when the caller often needs only the newest few. */
  firstPageSize?: number;
  /** Legacy: `id`, `-id`, `created_at`, `-created_at`, `updated_at`, `-updated_at`. */
  sort?: string;
  /** Legacy only. */
  id?: string;
  /** Legacy only. */
  userId?: number;
  /** Legacy only; secret. */
  readToken?: string;
  starred?: boolean;
  /** Versioned only: full-text filter on conversation content. */
  contentQuery?: string;
  signal?: AbortSignal;
  persistent?: boolean;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Retry transient failures until `signal` aborts, not just up to the attempt limit (see RequestSpec). */
  persistent?: boolean;
  /** Headers of this request only (the item key an emulator draws a new conversation's answers from). */
  headers?: Record<string, string>;
  /** Called as each attempt starts, its timeout running (see RequestSpec). */
  onAttempt?: () => void;
  /** Given up while a retry waits after an attempt that provably did not act (see RequestSpec). */
  idle?: Idle;
  /** Sent even when the run's store failed: a cancel (see RequestSpec). */
  cleanup?: boolean;
}

/** One interface over both Deep Search API flavours. */
export interface DeepSearchClient {
  readonly api: ApiFlavour;
  create(question: string, options?: CallOptions): Promise<Conversation>;
  get(ref: string, options?: CallOptions): Promise<Conversation>;
  /** Adds a follow-up question; the conversation goes back to processing. */
  addQuestion(ref: string, question: string, options?: CallOptions): Promise<AddedQuestion>;
  /**
   * Cancels what is processing. The legacy API cancels one question (`questionId`, or else the one
   * processing); the versioned API cancels the conversation.
   */
  cancel(ref: string, questionId?: string, options?: CallOptions): Promise<void>;
  delete(ref: string, options?: CallOptions): Promise<void>;
  /** Every conversation over all pages, each once. */
  list(options?: ListOptions): AsyncIterable<ConversationSummary>;
  close(): Promise<void>;
}

/** The legacy API can also read a conversation shared by read token. */
export interface ReadTokenReader {
  getByReadToken(readToken: string, options?: CallOptions): Promise<Conversation>;
}

export const MAX_QUESTION_LENGTH = 100_000;

/** A just-added question: its position is the caller's to know (replies carry none); `trace`, its request's. */
export type AddedQuestion = Omit<Question, 'index'> & { trace?: TraceRef };

export function withoutIndex(question: Question): AddedQuestion {
  const { index: _index, ...rest } = question;
  return rest;
}
