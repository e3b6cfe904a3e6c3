import { z } from 'zod';
import type { Outcome } from './outcome.js';
import { isoSeconds } from './clock.js';
import { FAILURES, LEGACY_ERROR_KINDS } from './failures.js';
import type { QuotaUsage } from './quota.js';
import { SORTS } from './listing.js';
import { isProcessing, type ConversationRecord, type QuestionRecord } from './store.js';
import { zeroUsage, type Usage } from './usage.js';

/** Legacy timestamps carry whole seconds: `2025-09-24T08:14:06Z`. */
const Timestamp = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

export const LegacyStatsSchema = z.strictObject({
  time_millis: z.number(),
  tool_calls: z.number(),
  total_input_tokens: z.number(),
  cached_tokens: z.number(),
  cache_creation_input_tokens: z.number(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
  credits: z.number(),
});

export const LegacyTurnSchema = z.strictObject({
  reasoning: z.string(),
  timestamp: z.number().int(),
  role: z.string(),
});

export const LegacySourceSchema = z.strictObject({
  type: z.literal('Repository'),
  link: z.string(),
  label: z.string(),
});

export const LegacyErrorSchema = z.strictObject({
  title: z.string(),
  kind: z.enum(LEGACY_ERROR_KINDS),
  message: z.string(),
  details: z.string(),
});

export const LegacyQuestionSchema = z.strictObject({
  id: z.number().int(),
  conversation_id: z.number().int(),
  question: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
  status: z.enum(['pending', 'processing', 'completed']),
  turns: z.array(LegacyTurnSchema).optional(),
  title: z.string().optional(),
  answer: z.string().optional(),
  sources: z.array(LegacySourceSchema).optional(),
  error: LegacyErrorSchema.optional(),
  stats: LegacyStatsSchema,
  suggested_followups: z.array(z.string()).nullable(),
});
export type LegacyQuestion = z.infer<typeof LegacyQuestionSchema>;

export const LegacyConversationSchema = z.strictObject({
  id: z.number().int(),
  questions: z.array(LegacyQuestionSchema),
  created_at: Timestamp,
  updated_at: Timestamp,
  user_id: z.number().int(),
  read_token: z.uuid(),
  viewer: z.strictObject({ is_owner: z.boolean() }).optional(),
  quota_usage: z
    .strictObject({ total_quota: z.number(), quota_limit: z.number(), reset_time: Timestamp })
    .optional(),
  share_url: z.url(),
});
export type LegacyConversation = z.infer<typeof LegacyConversationSchema>;

export const LegacyListSchema = z.array(LegacyConversationSchema);

export const LegacyCreateBodySchema = z.object({ question: z.string() });

export const LegacyFollowUpBodySchema = z.object({
  conversation_id: z.number().int(),
  question: z.string(),
});

const IntParam = z.string().regex(/^\d+$/, 'expected a non-negative integer').transform(Number);

export const LEGACY_MAX_PAGE_SIZE = 100;
export const LEGACY_DEFAULT_PAGE_SIZE = 50;

export const LegacyListQuerySchema = z.object({
  filter_id: IntParam.optional(),
  filter_user_id: IntParam.optional(),
  filter_read_token: z.string().min(1).optional(),
  filter_is_starred: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
  page_first: IntParam.pipe(z.number().min(1).max(LEGACY_MAX_PAGE_SIZE)).optional(),
  /** The id of the last conversation of the previous page, in decimal. */
  page_after: IntParam.optional(),
  sort: z.enum(SORTS).default('-updated_at'),
});

export interface LegacyView {
  viewerId: number;
  publicUrl: string;
  quota: QuotaUsage;
}

export function toLegacyConversation(c: ConversationRecord, view: LegacyView): LegacyConversation {
  const base = {
    id: c.id,
    questions: c.questions.map(toLegacyQuestion),
    created_at: isoSeconds(c.createdAtMs),
    updated_at: isoSeconds(c.updatedAtMs),
    user_id: c.userId,
    read_token: c.readToken,
  };
  const shareUrl = `${view.publicUrl}/deepsearch/${c.readToken}`;
  if (isProcessing(c)) return { ...base, share_url: shareUrl };
  return {
    ...base,
    viewer: { is_owner: c.userId === view.viewerId },
    quota_usage: {
      total_quota: view.quota.totalQuota,
      quota_limit: view.quota.quotaLimit,
      reset_time: isoSeconds(view.quota.resetAtMs),
    },
    share_url: shareUrl,
  };
}

export function toLegacyQuestion(q: QuestionRecord): LegacyQuestion {
  const head = {
    id: q.id,
    conversation_id: q.conversationId,
    question: q.text,
    created_at: isoSeconds(q.createdAtMs),
  };
  if (!q.end) {
    return {
      ...head,
      updated_at: isoSeconds(q.createdAtMs),
      status: 'processing',
      turns: [{ reasoning: q.text, timestamp: Math.floor(q.createdAtMs / 1000), role: 'user' }],
      stats: toStats(zeroUsage()),
      suggested_followups: null,
    };
  }
  const done = { ...head, updated_at: isoSeconds(q.end.atMs), status: 'completed' as const };
  const outcome: Outcome = q.end.outcome;
  if (outcome.kind === 'completed') {
    const { answer } = outcome;
    return {
      ...done,
      title: answer.title,
      answer: answer.markdown,
      sources: answer.sources,
      stats: toStats(outcome.usage),
      suggested_followups: answer.followups,
    };
  }
  const info = FAILURES[outcome.failure];
  const retryAt = q.end.retryAtMs === undefined ? undefined : isoSeconds(q.end.retryAtMs);
  return {
    ...done,
    // What was written before the output limit stopped it stays, beside the error.
    ...(outcome.partial && { answer: outcome.partial.markdown }),
    error: { title: info.title, kind: info.legacyKind, message: info.message, details: info.details(retryAt) },
    stats: toStats(outcome.usage),
    suggested_followups: null,
  };
}

function toStats(u: Usage): LegacyQuestion['stats'] {
  return {
    time_millis: u.timeMillis,
    tool_calls: u.toolCalls,
    total_input_tokens: u.totalInputTokens,
    cached_tokens: u.cachedTokens,
    cache_creation_input_tokens: u.cacheCreationInputTokens,
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    total_tokens: u.totalTokens,
    credits: u.credits,
  };
}
