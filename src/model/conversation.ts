import { z } from 'zod';
import { API_FLAVOURS } from './api-flavour.js';
import { isPartialAnswer } from './partial.js';

/** Normalized question state, the same for both API flavours. */
export const QuestionStateSchema = z.enum(['processing', 'completed', 'error', 'canceled']);
export type QuestionState = z.infer<typeof QuestionStateSchema>;

export const TERMINAL_STATES: ReadonlySet<QuestionState> = new Set(['completed', 'error', 'canceled']);

export const ErrorCodeSchema = z.enum([
  'TOKEN_LIMIT_EXCEEDED',
  'QUOTA_EXCEEDED',
  'ENTITLEMENT_EXCEEDED',
  'RATE_LIMITED',
  'INTERNAL',
  /** The output budget ran out after some answer text (the instance's `response_truncated`). */
  'TRUNCATED',
  /** The output budget ran out before any answer text (`response_truncated_no_answer`). */
  'TRUNCATED_NO_ANSWER',
  'CANCELED',
  'UNKNOWN',
]);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/**
 * Codes that mean the account may ask no more for now: what `--on-quota` acts on. The legacy API's only
 * limit kind in public clients is `RateLimitExceeded` (the Deep Search usage limit), so it counts too.
 */
const LIMIT_CODES: ReadonlySet<ErrorCode> = new Set(['QUOTA_EXCEEDED', 'ENTITLEMENT_EXCEEDED', 'RATE_LIMITED']);

export function isLimitError(code: ErrorCode): boolean {
  return LIMIT_CODES.has(code);
}

export const ApiFlavourSchema = z.enum(API_FLAVOURS);

/**
 * Legacy `stats`; the versioned API has none, so a versioned question has no stats at all (not zeros). A field
 * the reply left out or sent as null was not measured: it stays absent, never 0.
 */
export const StatsSchema = z.object({
  timeMillis: z.number().optional(),
  toolCalls: z.number().optional(),
  totalInputTokens: z.number().optional(),
  cachedTokens: z.number().optional(),
  cacheCreationInputTokens: z.number().optional(),
  promptTokens: z.number().optional(),
  completionTokens: z.number().optional(),
  totalTokens: z.number().optional(),
  credits: z.number().optional(),
});
export type Stats = z.infer<typeof StatsSchema>;

export const SourceSchema = z.object({ type: z.string(), link: z.string(), label: z.string() });
export type Source = z.infer<typeof SourceSchema>;

export const QuotaUsageSchema = z.object({
  totalQuota: z.number(),
  /** -1 means unlimited. */
  quotaLimit: z.number(),
  resetTime: z.string().optional(),
});
export type QuotaUsage = z.infer<typeof QuotaUsageSchema>;

export const QuestionErrorSchema = z.object({
  code: ErrorCodeSchema,
  /** The server's own kind (legacy) or code (versioned), kept verbatim. */
  rawCode: z.string(),
  message: z.string(),
  title: z.string().optional(),
  details: z.string().optional(),
  retryTime: z.string().optional(),
});
export type QuestionError = z.infer<typeof QuestionErrorSchema>;

export const QuestionSchema = z.object({
  /** Legacy question id; the versioned API has none. */
  id: z.string().optional(),
  /** Position in the conversation, 0 for the first question. */
  index: z.number().int(),
  text: z.string(),
  state: QuestionStateSchema,
  /** The server's own status word (legacy `status`, versioned state key). */
  rawState: z.string(),
  error: QuestionErrorSchema.optional(),
  title: z.string().optional(),
  answer: z.string().optional(),
  /**
   * The answer came with an error state (real servers end an answer past the output limit with
   * ERROR_INTERNAL and keep what was written): it is what was written before the error, not a whole answer.
   */
  partial: z.literal(true).optional(),
  sources: z.array(SourceSchema).optional(),
  suggestedFollowups: z.array(z.string()).optional(),
  stats: StatsSchema.optional(),
  /** Figures of the reply that cannot be true; the reply's stats are then left out whole (not summed). */
  anomalies: z.array(z.string()).optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type Question = z.infer<typeof QuestionSchema>;

/**
 * The instance's trace of the request whose reply this is (X-Trace, X-Trace-URL), when it was asked for one.
 * The URL needs a login to open and never holds a token; `note` says why a URL given was not kept.
 */
export const TraceRefSchema = z.object({ id: z.string(), url: z.string().optional(), note: z.string().optional() });
export type TraceRef = z.infer<typeof TraceRefSchema>;

export const ConversationSchema = z.object({
  api: ApiFlavourSchema,
  /** Legacy numeric id as text, or the versioned resource name; opaque to callers. */
  ref: z.string(),
  /** State of the latest question. */
  state: QuestionStateSchema,
  /** Error of the latest question, as the conversation's own state gives it (versioned). */
  error: QuestionErrorSchema.optional(),
  title: z.string().optional(),
  questions: z.array(QuestionSchema),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  userId: z.number().optional(),
  viewerIsOwner: z.boolean().optional(),
  quotaUsage: QuotaUsageSchema.optional(),
  /** The reply's HTTP Date: the server's clock when it answered (an emulator's virtual clock). */
  serverDate: z.string().optional(),
  /** The reply came from a dsbench emulator (embedded or standalone): its answers are emulated. */
  servedByEmulator: z.boolean().optional(),
  /** The trace of the request that got this reply, when the request asked for one and the instance traced it. */
  trace: TraceRefSchema.optional(),
  /** Secret: grants access to the conversation. Never store, log or print it. */
  readToken: z.string().optional(),
  /**
   * Secret for the same reason: the legacy `share_url` embeds the read token, and the versioned `url` is
   * the same share URL (`/deepsearch/<uuid>`). Neither API gives a link that is not a secret.
   */
  shareUrl: z.string().optional(),
});
export type Conversation = z.infer<typeof ConversationSchema>;

export const ConversationSummarySchema = z.object({
  ref: z.string(),
  title: z.string().optional(),
  state: QuestionStateSchema.optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  userId: z.number().optional(),
  /** The first question's text, when the list carries it (the legacy API): a lookup skips other texts unread. */
  firstQuestion: z.string().optional(),
});
export type ConversationSummary = z.infer<typeof ConversationSummarySchema>;

/** Marks a question read from a reply whose answer came with an error state, and names an output-limit error. */
export function markPartial(question: Question): Question {
  if (isPartialAnswer(question.state, question.answer)) question.partial = true;
  if (question.error) question.error = outputLimitError(question.error, question.answer);
  return question;
}

// Real servers report the output limit as ERROR_INTERNAL (legacy InternalError) with this message.
const OUTPUT_LIMIT_MESSAGE = /exceeded the maximum output length/i;

/**
 * The output-limit failure named as the instance's dashboards name it: `TRUNCATED` when some answer text
 * was written, `TRUNCATED_NO_ANSWER` when none was (a sign of a model or reasoning-effort change). The raw
 * code stays as the server sent it. Any other error is returned as it is.
 */
export function outputLimitError(error: QuestionError, answer: string | undefined): QuestionError {
  const isLimit = error.code === 'TRUNCATED' || error.code === 'TRUNCATED_NO_ANSWER' || (error.code === 'INTERNAL' && OUTPUT_LIMIT_MESSAGE.test(error.message));
  if (!isLimit) return error;
  const code = answer !== undefined && answer.trim() !== '' ? 'TRUNCATED' : 'TRUNCATED_NO_ANSWER';
  return code === error.code ? error : { ...error, code };
}

export function lastQuestion(conversation: Conversation): Question | undefined {
  return conversation.questions[conversation.questions.length - 1];
}

/**
 * Question `index` of a conversation. A versioned reply may carry a terminal state but no `questions`
 * (the platform's CLI stops on the state alone): the state is then the outcome of the question waited for.
 */
export function questionAt(conversation: Conversation, index: number): Question | undefined {
  const listed = conversation.questions[index];
  if (listed || conversation.questions.length > 0 || !TERMINAL_STATES.has(conversation.state)) return listed;
  const question: Question = { index, text: '', state: conversation.state, rawState: conversation.state };
  if (conversation.error) question.error = conversation.error;
  return question;
}

/** Drops the secrets so a conversation can be printed or stored. */
export function withoutSecrets(conversation: Conversation): Conversation {
  const { readToken: _readToken, shareUrl: _shareUrl, ...rest } = conversation;
  return rest;
}
