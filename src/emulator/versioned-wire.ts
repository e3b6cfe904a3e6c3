import { z } from 'zod';
import { isoSeconds, isoSecondsNotBefore } from './clock.js';
import { FAILURES, VERSIONED_ERROR_CODES } from './failures.js';
import { conversationTitle, lastQuestion, type ConversationRecord, type QuestionRecord } from './store.js';

/** Replies are protobuf-JSON: lowerCamelCase, empty fields omitted, RFC 3339 timestamps (real servers send whole seconds). */
const Timestamp = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

/** The share URL: the web client's page of the conversation, named by a UUID (a secret, like the legacy read token). */
const ShareUrl = z.url().regex(/\/deepsearch\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

const Empty = z.strictObject({});

export const VersionedStateSchema = z.union([
  z.strictObject({ processing: Empty }),
  z.strictObject({ completed: Empty }),
  z.strictObject({ canceled: Empty }),
  z.strictObject({
    error: z.strictObject({
      code: z.enum(VERSIONED_ERROR_CODES),
      message: z.string(),
      retryTime: Timestamp.optional(),
    }),
  }),
]);
export type VersionedState = z.infer<typeof VersionedStateSchema>;

const QuestionInputSchema = z.strictObject({ question: z.strictObject({ text: z.string() }) });

export const VersionedQuestionSchema = z.strictObject({
  input: z.array(QuestionInputSchema),
  answer: z.array(z.strictObject({ markdown: z.strictObject({ text: z.string() }) })).optional(),
  createTime: Timestamp,
});
export type VersionedQuestion = z.infer<typeof VersionedQuestionSchema>;

export const VersionedConversationSchema = z.strictObject({
  name: z.string(),
  state: VersionedStateSchema,
  createTime: Timestamp,
  updateTime: Timestamp,
  title: z.string().optional(),
  questions: z.array(VersionedQuestionSchema),
  url: ShareUrl,
});
export type VersionedConversation = z.infer<typeof VersionedConversationSchema>;

export const ConversationSummarySchema = z.strictObject({
  name: z.string(),
  title: z.string().optional(),
  createTime: Timestamp,
  updateTime: Timestamp,
  url: ShareUrl,
});

/** Both fields are omitted when empty, as protobuf-JSON does. */
export const ListConversationSummariesResponseSchema = z.strictObject({
  conversationSummaries: z.array(ConversationSummarySchema).optional(),
  nextPageToken: z.string().optional(),
});
export type ListConversationSummariesResponse = z.infer<typeof ListConversationSummariesResponseSchema>;

// Requests: keys arrive camelCased (see camelizeKeys); unknown keys are dropped.

const QuestionRequestSchema = z.object({
  input: z
    .array(z.object({ question: z.object({ text: z.string() }).optional() }))
    .min(1, 'a question needs at least one input'),
});

/** protobuf-JSON allows 64-bit and 32-bit integers as strings too. */
const Int = z.union([z.number().int(), z.string().regex(/^-?\d+$/).transform(Number)]);

export const CreateConversationRequestSchema = z.object({
  parent: z.string().optional(),
  conversation: z.object({
    questions: z.array(QuestionRequestSchema).length(1, 'a new conversation takes exactly one question'),
  }),
});

export const NameRequestSchema = z.object({ name: z.string().min(1, 'name is required') });

export const ListConversationSummariesRequestSchema = z.object({
  parent: z.string().optional(),
  pageSize: Int.pipe(z.number().min(0)).optional(),
  pageToken: z.string().optional(),
  filters: z.array(z.object({ contentQuery: z.string().optional(), starred: z.boolean().optional() })).optional(),
});

export const AddConversationQuestionRequestSchema = z.object({
  parent: z.string().min(1, 'parent is required'),
  question: QuestionRequestSchema,
});

export function questionText(question: z.output<typeof QuestionRequestSchema>): string {
  return question.input.find((i) => i.question !== undefined)?.question?.text ?? '';
}

/** Named by the owner's numeric id, whatever the request said (`users/~self`), as real servers name them. */
export function conversationName(c: ConversationRecord): string {
  return `users/${c.userId}/conversations/${c.id}`;
}

/** The share URL, as real servers send it in `url`: the same secret as the legacy `share_url`. */
export function shareUrl(publicUrl: string, c: ConversationRecord): string {
  return `${publicUrl}/deepsearch/${c.readToken}`;
}

export function toVersionedState(c: ConversationRecord): VersionedState {
  const end = lastQuestion(c)?.end;
  if (!end) return { processing: {} };
  if (end.outcome.kind === 'completed') return { completed: {} };
  const info = FAILURES[end.outcome.failure];
  if (!info.versionedCode) return { canceled: {} };
  const error = { code: info.versionedCode, message: info.versionedMessage ?? info.message };
  return { error: end.retryAtMs === undefined ? error : { ...error, retryTime: isoSecondsNotBefore(end.retryAtMs) } };
}

/** An answer cut short by an error is sent as it is (a partial answer); none at all on other errors. */
export function toVersionedQuestion(q: QuestionRecord): VersionedQuestion {
  const input = [{ question: { text: q.text } }];
  const createTime = isoSeconds(q.createdAtMs);
  const outcome = q.end?.outcome;
  const answer = outcome?.kind === 'completed' ? outcome.answer : outcome?.partial;
  if (!answer) return { input, createTime };
  return { input, answer: [{ markdown: { text: answer.markdown } }], createTime };
}

export function toVersionedConversation(c: ConversationRecord, publicUrl: string): VersionedConversation {
  const title = conversationTitle(c);
  return {
    name: conversationName(c),
    state: toVersionedState(c),
    createTime: isoSeconds(c.createdAtMs),
    updateTime: isoSeconds(c.updatedAtMs),
    ...(title ? { title } : {}),
    questions: c.questions.map(toVersionedQuestion),
    url: shareUrl(publicUrl, c),
  };
}

type Summary = z.infer<typeof ConversationSummarySchema>;

/** Each conversation's last summary: a runner's lookups list the same conversations again and again. */
const summaries = new WeakMap<ConversationRecord, { updatedAtMs: number; title: string | undefined; publicUrl: string; summary: Summary }>();

/** Read only: the same object is given for as long as the conversation is not updated. */
export function toSummary(c: ConversationRecord, publicUrl: string): Summary {
  const title = conversationTitle(c);
  const cached = summaries.get(c);
  if (cached && cached.updatedAtMs === c.updatedAtMs && cached.title === title && cached.publicUrl === publicUrl) return cached.summary;
  const summary = {
    name: conversationName(c),
    ...(title ? { title } : {}),
    createTime: isoSeconds(c.createdAtMs),
    updateTime: isoSeconds(c.updatedAtMs),
    url: shareUrl(publicUrl, c),
  };
  summaries.set(c, { updatedAtMs: c.updatedAtMs, title, publicUrl, summary });
  return summary;
}
