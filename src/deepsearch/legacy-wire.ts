import { z } from 'zod';
import { OptServerText, ServerText } from '../http/server-text.js';
import { markPartial, type Conversation, type Question, type QuestionError } from '../model/conversation.js';
import { impossibleStats, statsFromSnakeCase } from './stats.js';
import { normalizeErrorCode } from './wire.js';

// Wire schemas of the legacy REST API. Loose objects: unknown fields pass through; only what the
// client relies on is required (ids, status, the question list).
const Id = z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(String);
const OptString = z.string().nullish().transform((v) => v ?? undefined);
// Any number, infinite included (JSON.parse reads 1e400 as Infinity): an impossible figure is an anomaly
// of that reply (see impossibleStats), not a reason to drop the reply.
const Num = z.custom<number>((v) => typeof v === 'number', 'expected a number').nullish();

const LegacyStats = z.looseObject({
  time_millis: Num,
  tool_calls: Num,
  total_input_tokens: Num,
  cached_tokens: Num,
  cache_creation_input_tokens: Num,
  prompt_tokens: Num,
  completion_tokens: Num,
  total_tokens: Num,
  credits: Num,
});

const LegacyError = z.looseObject({
  title: OptServerText,
  kind: OptServerText,
  message: OptServerText,
  details: OptServerText,
});

const LegacySource = z.looseObject({ type: ServerText.default('Repository'), link: ServerText.default(''), label: ServerText.default('') });

export const LegacyQuestionWire = z.looseObject({
  id: Id,
  conversation_id: Id.optional(),
  question: ServerText.default(''),
  created_at: OptString,
  updated_at: OptString,
  status: ServerText,
  title: OptServerText,
  answer: OptServerText,
  sources: z.array(LegacySource).nullish(),
  suggested_followups: z.array(ServerText).nullish(),
  stats: LegacyStats.nullish(),
  error: LegacyError.nullish(),
});
type LegacyQuestionWire = z.output<typeof LegacyQuestionWire>;

export const LegacyConversationWire = z.looseObject({
  id: Id,
  questions: z.array(LegacyQuestionWire),
  created_at: OptString,
  updated_at: OptString,
  user_id: z.number().nullish(),
  read_token: OptString,
  share_url: OptString,
  viewer: z.looseObject({ is_owner: z.boolean().nullish() }).nullish(),
  quota_usage: z
    .looseObject({ total_quota: z.number(), quota_limit: z.number(), reset_time: OptString })
    .nullish(),
});
type LegacyConversationWire = z.output<typeof LegacyConversationWire>;

/** List reply: a bare array, or an envelope some servers use, with an optional cursor. */
export const LegacyListWire = z.union([
  z.array(LegacyConversationWire),
  z.looseObject({
    conversations: z.array(LegacyConversationWire),
    next_cursor: OptString,
    nextCursor: OptString,
    page_info: z.looseObject({ end_cursor: OptString, has_next_page: z.boolean().nullish() }).nullish(),
    pageInfo: z.looseObject({ endCursor: OptString, hasNextPage: z.boolean().nullish() }).nullish(),
  }),
]);

/** Follow-up reply: the new Question alone, or the whole Conversation on some servers. */
export const LegacyAddQuestionWire = z.union([LegacyConversationWire, LegacyQuestionWire]);

function questionError(wire: NonNullable<LegacyQuestionWire['error']>): QuestionError {
  const rawCode = wire.kind ?? wire.title ?? 'unknown';
  return {
    code: normalizeErrorCode(rawCode),
    rawCode,
    message: wire.message ?? wire.title ?? '',
    ...(wire.title !== undefined && { title: wire.title }),
    ...(wire.details !== undefined && { details: wire.details }),
  };
}

export function legacyQuestion(wire: LegacyQuestionWire, index: number): Question {
  const status = wire.status;
  const error = wire.error ? questionError(wire.error) : undefined;
  // `completed` with an error is a failure; unknown statuses (such as `pending`) are not terminal.
  const state =
    status !== 'completed' ? 'processing' : !error ? 'completed' : error.code === 'CANCELED' ? 'canceled' : 'error';
  const question: Question = { id: wire.id, index, text: wire.question, state, rawState: status };
  if (error) question.error = error;
  if (wire.title) question.title = wire.title;
  if (wire.answer !== undefined) question.answer = wire.answer;
  if (wire.sources) question.sources = wire.sources.map(({ type, link, label }) => ({ type, link, label }));
  if (wire.suggested_followups) question.suggestedFollowups = wire.suggested_followups;
  if (wire.stats) {
    // One impossible figure makes the whole block suspect: it is kept out of every sum and percentile.
    const anomalies = impossibleStats(wire.stats);
    if (anomalies.length > 0) question.anomalies = anomalies;
    else {
      const stats = statsFromSnakeCase(wire.stats);
      if (stats) question.stats = stats;
    }
  }
  if (wire.created_at) question.createdAt = wire.created_at;
  if (wire.updated_at) question.updatedAt = wire.updated_at;
  return markPartial(question);
}

export function legacyConversation(wire: LegacyConversationWire): Conversation {
  const questions = wire.questions.map(legacyQuestion);
  const last = questions[questions.length - 1];
  const conversation: Conversation = { api: 'legacy', ref: wire.id, state: last?.state ?? 'processing', questions };
  // The latest title names the conversation, so a failed follow-up (which has none) does not blank it.
  const titled = questions.findLast((q) => q.title);
  if (titled?.title) conversation.title = titled.title;
  if (wire.created_at) conversation.createdAt = wire.created_at;
  if (wire.updated_at) conversation.updatedAt = wire.updated_at;
  if (typeof wire.user_id === 'number') conversation.userId = wire.user_id;
  if (typeof wire.viewer?.is_owner === 'boolean') conversation.viewerIsOwner = wire.viewer.is_owner;
  if (wire.quota_usage) {
    conversation.quotaUsage = {
      totalQuota: wire.quota_usage.total_quota,
      quotaLimit: wire.quota_usage.quota_limit,
      ...(wire.quota_usage.reset_time && { resetTime: wire.quota_usage.reset_time }),
    };
  }
  if (wire.read_token) conversation.readToken = wire.read_token;
  if (wire.share_url) conversation.shareUrl = wire.share_url;
  return conversation;
}

export function isLegacyConversation(wire: z.output<typeof LegacyAddQuestionWire>): wire is LegacyConversationWire {
  return Array.isArray((wire as { questions?: unknown }).questions);
}
