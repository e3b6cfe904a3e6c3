import { ProtocolError, UsageError } from '../errors/errors.js';
import type { RequestSpec, Transport } from '../http/transport.js';
import { withoutIndex, type AddedQuestion, type CallOptions, type DeepSearchClient, type ListOptions } from './client.js';
import type { Conversation, ConversationSummary } from '../model/conversation.js';
import {
  VersionedConversationWire,
  VersionedListWire,
  VersionedQuestionWire,
  addedQuestion,
  versionedConversation,
  versionedSummary,
} from './versioned-wire.js';
import { camelizeKeys, checkQuestionText, parseReply, withReplyHeaders, withReplyTrace } from './wire.js';

const SERVICE = '/api/deepsearch.v1.Service';
const PARENT = 'users/~self';
const DEFAULT_PAGE_SIZE = 50;

/** Client of the versioned Connect-RPC API (`/api/deepsearch.v1.Service/*`): unary JSON POSTs. */
export class VersionedClient implements DeepSearchClient {
  readonly api = 'versioned';

  constructor(private readonly transport: Transport) {}

  async create(question: string, options: CallOptions = {}): Promise<Conversation> {
    checkQuestionText(question);
    const body = { parent: PARENT, conversation: { questions: [{ input: [{ question: { text: question } }] }] } };
    return this.conversation('CreateConversation', body, true, options);
  }

  get(ref: string, options: CallOptions = {}): Promise<Conversation> {
    return this.conversation('GetConversation', { name: nameOf(ref) }, false, options);
  }

  async addQuestion(ref: string, question: string, options: CallOptions = {}): Promise<AddedQuestion> {
    checkQuestionText(question);
    const body = { parent: nameOf(ref), question: { input: [{ question: { text: question } }] } };
    const { reply, json, spec } = await this.call('AddConversationQuestion', body, true, options);
    return withReplyTrace(withoutIndex(addedQuestion(parseReply(VersionedQuestionWire, json, contextOf(spec), reply))), reply, this.transport.endpoint);
  }

  async cancel(ref: string, _questionId?: string, options: CallOptions = {}): Promise<void> {
    await this.call('CancelConversation', { name: nameOf(ref) }, false, options);
  }

  async delete(ref: string, options: CallOptions = {}): Promise<void> {
    await this.call('DeleteConversation', { name: nameOf(ref) }, false, options);
  }

  async *list(options: ListOptions = {}): AsyncIterable<ConversationSummary> {
    for (const [flag, value] of [['sort', options.sort], ['id', options.id], ['user id', options.userId], ['read token', options.readToken]] as const) {
      if (value !== undefined) throw new UsageError(`the versioned API cannot list by ${flag}; use --api legacy for it`);
    }
    const filters: Array<Record<string, unknown>> = [];
    if (options.contentQuery !== undefined) filters.push({ contentQuery: options.contentQuery });
    if (options.starred !== undefined) filters.push({ starred: options.starred });
    const seen = new Set<string>();
    let pageToken: string | undefined;
    for (;;) {
      const body = {
        parent: PARENT,
        pageSize: (pageToken === undefined ? options.firstPageSize : undefined) ?? options.pageSize ?? DEFAULT_PAGE_SIZE,
        ...(pageToken !== undefined && { pageToken }),
        ...(filters.length > 0 && { filters }),
      };
      const { reply, json, spec } = await this.call('ListConversationSummaries', body, false, options);
      const page = parseReply(VersionedListWire, json, contextOf(spec), reply);
      for (const summary of page.conversationSummaries ?? []) {
        if (seen.has(summary.name)) continue;
        seen.add(summary.name);
        yield versionedSummary(summary);
      }
      if (!page.nextPageToken) return;
      if (page.nextPageToken === pageToken) {
        throw new ProtocolError(contextOf(spec), `nextPageToken did not advance ("${page.nextPageToken}")`, '');
      }
      pageToken = page.nextPageToken;
    }
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  private async conversation(method: string, body: unknown, creates: boolean, options: CallOptions): Promise<Conversation> {
    // Not through `call`: an async step fewer on every create and poll.
    const spec = specOf(method, body, creates, options);
    const { reply, json } = await this.transport.requestJson(spec);
    return withReplyHeaders(versionedConversation(parseReply(VersionedConversationWire, camelizeKeys(json), contextOf(spec), reply)), reply, this.transport.endpoint);
  }

  private async call(method: string, body: unknown, creates: boolean, options: CallOptions) {
    const spec = specOf(method, body, creates, options);
    const { reply, json } = await this.transport.requestJson(spec);
    return { reply, json: camelizeKeys(json), spec };
  }
}

function specOf(method: string, body: unknown, creates: boolean, options: CallOptions): RequestSpec {
  return {
    operation: `versioned.${method}`,
    method: 'POST',
    path: `${SERVICE}/${method}`,
    body,
    creates,
    ...(options.signal && { signal: options.signal }),
    ...(options.persistent && { persistent: true }),
    ...(options.cleanup && { cleanup: true }),
    ...(options.headers && { headers: options.headers }),
    ...(options.onAttempt && { onAttempt: options.onAttempt }),
    ...(options.idle && { idle: options.idle }),
  };
}

function nameOf(ref: string): string {
  // A bare number is accepted for convenience: it names the caller's own conversation.
  return /^\d+$/.test(ref) ? `${PARENT}/conversations/${ref}` : ref;
}

function contextOf(spec: RequestSpec) {
  return { operation: spec.operation, method: spec.method, endpoint: spec.path };
}
