import { ProtocolError, UsageError } from '../errors/errors.js';
import { registerSecret } from '../redact.js';
import type { RequestSpec, Transport } from '../http/transport.js';
import { withoutIndex, type AddedQuestion, type CallOptions, type DeepSearchClient, type ListOptions, type ReadTokenReader } from './client.js';
import {
  LegacyAddQuestionWire,
  LegacyConversationWire,
  LegacyListWire,
  isLegacyConversation,
  legacyConversation,
  legacyQuestion,
} from './legacy-wire.js';
import type { Conversation, ConversationSummary } from '../model/conversation.js';
import { checkQuestionText, parseReply, withReplyHeaders, withReplyTrace } from './wire.js';

const BASE = '/.api/deepsearch/v1';
const SORTS = new Set(['id', '-id', 'created_at', '-created_at', 'updated_at', '-updated_at']);
const DEFAULT_PAGE_SIZE = 50;
/**
 * Sort sent when the caller names none. The server's default (`-updated_at`) pages by a key that changes
 * while conversations are processing, so a conversation updated between two pages can be skipped; ids
 * never change, so `-id` (newest first) lists every conversation once.
 */
const DEFAULT_SORT = '-id';

/** Client of the legacy REST API (`/.api/deepsearch/v1`). */
export class LegacyClient implements DeepSearchClient, ReadTokenReader {
  readonly api = 'legacy';

  constructor(private readonly transport: Transport) {}

  async create(question: string, options: CallOptions = {}): Promise<Conversation> {
    checkQuestionText(question);
    return this.conversation({ operation: 'legacy.create', method: 'POST', path: BASE, body: { question }, creates: true, ...signal(options) });
  }

  async get(ref: string, options: CallOptions = {}): Promise<Conversation> {
    return this.conversation({ operation: 'legacy.get', method: 'GET', path: `${BASE}/${idOf(ref)}`, ...signal(options) });
  }

  async addQuestion(ref: string, question: string, options: CallOptions = {}): Promise<AddedQuestion> {
    checkQuestionText(question);
    const id = idOf(ref);
    const spec: RequestSpec = {
      operation: 'legacy.addQuestion',
      method: 'POST',
      path: `${BASE}/${id}/questions`,
      body: { conversation_id: Number(id), question },
      creates: true,
      ...signal(options),
    };
    const { reply, json } = await this.transport.requestJson(spec);
    const wire = parseReply(LegacyAddQuestionWire, json, contextOf(spec), reply);
    if (!isLegacyConversation(wire)) return withReplyTrace(withoutIndex(legacyQuestion(wire, -1)), reply, this.transport.endpoint);
    const last = legacyConversation(wire).questions.at(-1);
    if (!last) throw new ProtocolError(contextOf(spec), 'field "questions" is empty after adding a question', '');
    return withReplyTrace(withoutIndex(last), reply, this.transport.endpoint);
  }

  async cancel(ref: string, questionId?: string, options: CallOptions = {}): Promise<void> {
    const id = idOf(ref);
    const qid = questionId ?? (await this.processingQuestionId(ref, options));
    if (qid === undefined) return;
    await this.transport.request({
      operation: 'legacy.cancel',
      method: 'POST',
      path: `${BASE}/${id}/questions/${encodeURIComponent(qid)}/cancel`,
      ...signal(options),
    });
  }

  async delete(ref: string, options: CallOptions = {}): Promise<void> {
    await this.transport.request({ operation: 'legacy.delete', method: 'DELETE', path: `${BASE}/${idOf(ref)}`, ...signal(options) });
  }

  async *list(options: ListOptions = {}): AsyncIterable<ConversationSummary> {
    if (options.contentQuery !== undefined) {
      throw new UsageError('the legacy API has no content filter; use --api versioned for --query');
    }
    if (options.sort !== undefined && !SORTS.has(options.sort)) {
      throw new UsageError(`sort "${options.sort}" is not one of ${[...SORTS].join(', ')}`);
    }
    if (options.readToken) registerSecret(options.readToken);
    const seen = new Set<string>();
    let after: string | undefined;
    for (;;) {
      const pageSize = (after === undefined ? options.firstPageSize : undefined) ?? options.pageSize ?? DEFAULT_PAGE_SIZE;
      const page = await this.listPage(options, pageSize, after);
      for (const conversation of page.conversations) {
        if (seen.has(conversation.ref)) continue;
        seen.add(conversation.ref);
        yield summaryOf(conversation);
      }
      const next = page.cursor ?? (page.conversations.length >= pageSize ? page.conversations.at(-1)?.ref : undefined);
      if (page.hasNext === false || next === undefined || page.conversations.length === 0) return;
      if (next === after) {
        throw new ProtocolError(
          { operation: 'legacy.list', method: 'GET', endpoint: BASE },
          `the page cursor did not advance (page_after=${next})`,
          '',
        );
      }
      after = next;
    }
  }

  async getByReadToken(readToken: string, options: CallOptions = {}): Promise<Conversation> {
    registerSecret(readToken);
    const page = await this.listPage({ readToken, ...signal(options) }, 1, undefined);
    const found = page.conversations[0];
    if (!found) {
      throw new UsageError('no conversation has this read token, or sharing is disabled on the instance');
    }
    return found;
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  private async listPage(
    options: ListOptions,
    pageSize: number,
    after: string | undefined,
  ): Promise<{ conversations: Conversation[]; cursor?: string | undefined; hasNext?: boolean | undefined }> {
    const spec: RequestSpec = {
      operation: 'legacy.list',
      method: 'GET',
      path: BASE,
      query: {
        filter_id: options.id,
        filter_user_id: options.userId,
        filter_read_token: options.readToken,
        filter_is_starred: options.starred,
        page_first: pageSize,
        page_after: after,
        sort: options.sort ?? DEFAULT_SORT,
      },
      ...signal(options),
    };
    const { reply, json } = await this.transport.requestJson(spec);
    const wire = parseReply(LegacyListWire, json, contextOf(spec), reply);
    if (Array.isArray(wire)) return { conversations: wire.map(legacyConversation) };
    return {
      conversations: wire.conversations.map(legacyConversation),
      cursor: wire.next_cursor ?? wire.nextCursor ?? wire.page_info?.end_cursor ?? wire.pageInfo?.endCursor,
      hasNext: wire.page_info?.has_next_page ?? wire.pageInfo?.hasNextPage ?? undefined,
    };
  }

  private async conversation(spec: RequestSpec): Promise<Conversation> {
    const { reply, json } = await this.transport.requestJson(spec);
    return withReplyHeaders(legacyConversation(parseReply(LegacyConversationWire, json, contextOf(spec), reply)), reply, this.transport.endpoint);
  }

  private async processingQuestionId(ref: string, options: CallOptions): Promise<string | undefined> {
    const conversation = await this.get(ref, options);
    return conversation.questions.findLast((q) => q.state === 'processing')?.id;
  }
}

function idOf(ref: string): string {
  if (!/^\d+$/.test(ref)) throw new UsageError(`"${ref}" is not a legacy conversation id (a number)`);
  return ref;
}

function signal(options: CallOptions): Pick<RequestSpec, 'signal' | 'persistent' | 'headers' | 'onAttempt' | 'idle' | 'cleanup'> {
  return {
    ...(options.cleanup && { cleanup: true }),
    ...(options.signal && { signal: options.signal, ...(options.persistent && { persistent: true }) }),
    ...(options.headers && { headers: options.headers }),
    ...(options.onAttempt && { onAttempt: options.onAttempt }),
    ...(options.idle && { idle: options.idle }),
  };
}

function contextOf(spec: RequestSpec) {
  return { operation: spec.operation, method: spec.method, endpoint: spec.path };
}

function summaryOf(conversation: Conversation): ConversationSummary {
  const summary: ConversationSummary = { ref: conversation.ref, state: conversation.state };
  if (conversation.title) summary.title = conversation.title;
  if (conversation.createdAt) summary.createdAt = conversation.createdAt;
  if (conversation.updatedAt) summary.updatedAt = conversation.updatedAt;
  if (conversation.userId !== undefined) summary.userId = conversation.userId;
  const first = conversation.questions[0]?.text;
  if (first !== undefined) summary.firstQuestion = first;
  return summary;
}
