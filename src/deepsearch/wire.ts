import type { z } from 'zod';
import { traceOf } from '../http/trace-headers.js';
import { EMULATOR_HEADER } from '../emulator-identity.js';
import { ProtocolError, UsageError, type RequestContext } from '../errors/errors.js';
import { excerpt } from '../redact.js';
import type { Reply } from '../http/transport.js';
import { MAX_QUESTION_LENGTH, type AddedQuestion } from './client.js';
import type { Conversation, ErrorCode } from '../model/conversation.js';

/** Parses a reply with a wire schema; a missing or mistyped field the client relies on is named in the error. */
export function parseReply<S extends z.ZodType>(schema: S, json: unknown, ctx: RequestContext, reply: Reply): z.output<S> {
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : '(reply body)';
  // Judged from the reply itself: a union (such as a numeric-or-string id) reports a missing field only as "Invalid input".
  const missing = issue !== undefined && issue.path.length > 0 && valueAt(json, issue.path) === undefined;
  const problem = missing ? 'is missing' : `is invalid (${issue?.message ?? 'unknown problem'})`;
  throw new ProtocolError(ctx, `field "${field}" ${problem}`, excerpt(reply.text));
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let node = value;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

/**
 * Adds the reply's Date header, when it has one, as the server's clock at the reply, and whether a dsbench
 * emulator sent it, to a conversation just made from that reply (set on it, not copied: once per reply).
 */
export function withReplyHeaders(conversation: Conversation, reply: Reply, endpoint: string): Conversation {
  const date = reply.headers.date;
  if (date) conversation.serverDate = date;
  if (reply.headers[EMULATOR_HEADER] !== undefined) conversation.servedByEmulator = true;
  const trace = traceOf(reply.headers, endpoint);
  if (trace) conversation.trace = trace;
  return conversation;
}

/** A just-added question with the trace its reply named, if any. */
export function withReplyTrace(added: AddedQuestion, reply: Reply, endpoint: string): AddedQuestion {
  const trace = traceOf(reply.headers, endpoint);
  if (trace) added.trace = trace;
  return added;
}

export function checkQuestionText(text: string): void {
  if (text.trim() === '') throw new UsageError('the question is empty; give the text of a question');
  if (text.length > MAX_QUESTION_LENGTH) {
    throw new UsageError(`the question has ${text.length} characters; the service accepts at most ${MAX_QUESTION_LENGTH}`);
  }
}

/** Maps a server's error kind or code (either flavour, any spelling) to a normalized code. */
export function normalizeErrorCode(raw: string): ErrorCode {
  const key = raw.toLowerCase().replace(/^error_/, '').replace(/[^a-z]/g, '');
  if (key.includes('tokenlimit')) return 'TOKEN_LIMIT_EXCEEDED';
  // Connect's resource_exhausted is how an RPC says a quota ran out.
  if (key.includes('quota') || key.includes('resourceexhausted')) return 'QUOTA_EXCEEDED';
  if (key.includes('entitlement')) return 'ENTITLEMENT_EXCEEDED';
  if (key.includes('ratelimit') || key.includes('toomanyrequests')) return 'RATE_LIMITED';
  if (key.includes('cancel')) return 'CANCELED';
  // The instance's own outcome names (response_truncated, response_truncated_no_answer).
  if (key.includes('truncatednoanswer')) return 'TRUNCATED_NO_ANSWER';
  if (key.includes('truncated')) return 'TRUNCATED';
  if (key.includes('internal')) return 'INTERNAL';
  return 'UNKNOWN';
}

/**
 * Reads protobuf-JSON tolerant of snake_case: servers and proxies differ, the client reads both. A part
 * with no snake_case key anywhere is returned as is (no copy): the common case, on every reply.
 */
export function camelizeKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const inner = camelizeKeys(value[i]);
      if (inner !== value[i]) (out ??= value.slice())[i] = inner;
    }
    return out ?? value;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (key.includes('_') || camelizeKeys(record[key]) !== record[key]) return camelizedCopy(record);
  }
  return value;
}

function camelizedCopy(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(record)) {
    const camel = key.includes('_') ? key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) : key;
    // An explicit camelCase key wins over its snake_case twin.
    if (!(camel in out) || camel === key) out[camel] = camelizeKeys(inner);
  }
  return out;
}
