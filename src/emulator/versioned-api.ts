import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { writeConnectError, writeConnectErrorForStatus, type ConnectCode } from './connect.js';
import { parseRequest, readJsonBody, RequestError, sendJson } from './http-io.js';
import { firstPage, where, type SortKeys } from './listing.js';
import type { ApiDeps } from './api-deps.js';
import type { Route, RouteContext } from './routes.js';
import { DomainError, type DomainErrorKind } from './service.js';
import {
  AddConversationQuestionRequestSchema,
  CreateConversationRequestSchema,
  ListConversationSummariesRequestSchema,
  NameRequestSchema,
  questionText,
  toSummary,
  toVersionedConversation,
  toVersionedQuestion,
  type ListConversationSummariesResponse,
} from './versioned-wire.js';

export const VERSIONED_BASE = '/api/deepsearch.v1.Service';

const DEFAULT_PAGE_SIZE = 50;
/** Larger page sizes are coerced down, as Google's API guidelines ask. */
const MAX_PAGE_SIZE = 100;

/** A follow-up while a question is processing: the conversation is not in the needed state. */
const DOMAIN_CODE: Record<DomainErrorKind, ConnectCode> = {
  invalid: 'invalid_argument',
  not_found: 'not_found',
  busy: 'failed_precondition',
};

export function versionedRoutes(deps: ApiDeps): Route[] {
  const { service, publicUrl } = deps;

  return [
    rpc('CreateConversation', 'write', CreateConversationRequestSchema, (input, ctx) => {
      checkParent(input.parent, ctx);
      const [question] = input.conversation.questions;
      const conversation = service.ask(ctx.user.id, question ? questionText(question) : '', ctx.itemKey);
      ctx.trace?.conversation(conversation.id);
      return toVersionedConversation(conversation, publicUrl);
    }),

    rpc('GetConversation', 'read', NameRequestSchema, (input, ctx) =>
      toVersionedConversation(service.get(ctx.user.id, conversationId(input.name)), publicUrl),
    ),

    rpc('ListConversationSummaries', 'read', ListConversationSummariesRequestSchema, (input, ctx) => {
      checkParent(input.parent, ctx);
      const filters = input.filters ?? [];
      const size = Math.min(input.pageSize || DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
      const after = input.pageToken ? decodePageToken(input.pageToken) : undefined;
      const needles = filters.map((f) => f.contentQuery?.toLowerCase());
      // A content query reads only the conversations that match it, from the content index.
      const at = needles.findIndex((n) => n);
      const indexed = needles[at];
      const candidates = indexed ? service.visibleContaining(ctx.user.id, indexed, after) : service.visible(ctx.user.id, '-updated_at', after);
      const matching = where(candidates, (c) =>
        filters.every((f, i) => {
          if (f.starred !== undefined && c.starred !== f.starred) return false;
          const needle = needles[i];
          // The indexed needle matches every candidate already.
          return needle === undefined || needle === '' || i === at || service.contentOf(c).some((t) => t.includes(needle));
        }),
      );
      const page = firstPage(matching, size);
      const reply: ListConversationSummariesResponse = {};
      if (page.items.length > 0) reply.conversationSummaries = page.items.map((c) => toSummary(c, publicUrl));
      const last = page.items[page.items.length - 1];
      if (page.hasMore && last) reply.nextPageToken = encodePageToken(last);
      return reply;
    }),

    rpc('AddConversationQuestion', 'write', AddConversationQuestionRequestSchema, (input, ctx) =>
      toVersionedQuestion(service.followUp(ctx.user.id, conversationId(input.parent), questionText(input.question))),
    ),

    rpc('CancelConversation', 'write', NameRequestSchema, (input, ctx) =>
      toVersionedConversation(service.cancel(ctx.user.id, conversationId(input.name)), publicUrl),
    ),

    rpc('DeleteConversation', 'write', NameRequestSchema, (input, ctx) => {
      service.remove(ctx.user.id, conversationId(input.name));
      return {};
    }),
  ];
}

function rpc<S extends z.ZodType>(
  method: string,
  scope: 'read' | 'write',
  schema: S,
  action: (input: z.output<S>, ctx: RouteContext) => unknown,
): Route {
  const handler = async (req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> => {
    if (!isJson(req.headers['content-type'])) {
      // Connect answers an unsupported codec with 415 and no body.
      res.writeHead(415, { 'Accept-Post': 'application/json' });
      res.end();
      return;
    }
    try {
      const input = parseRequest(schema, camelizeKeys(await readJsonBody(req)));
      sendJson(res, 200, action(input, ctx), ctx);
    } catch (error) {
      if (error instanceof RequestError) writeConnectErrorForStatus(res, error.status, error.message);
      else if (error instanceof DomainError) writeConnectError(res, DOMAIN_CODE[error.kind], error.message);
      else throw error;
    }
  };
  return {
    method: 'POST',
    path: `${VERSIONED_BASE}/${method}`,
    operation: `versioned.${method}`,
    scope,
    handler,
    errors: writeConnectErrorForStatus,
  };
}

function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/** Names are opaque to clients; the user segment is `~self`, `-` or an id, ownership is checked later. */
function conversationId(name: string): number {
  const match = /^users\/[^/]+\/conversations\/(\d+)$/.exec(name);
  if (!match) throw new RequestError(400, `invalid conversation name "${name}"`);
  return Number(match[1]);
}

/** `users/-` (any user) is accepted too: a user only ever sees and creates their own. */
function checkParent(parent: string | undefined, ctx: RouteContext): void {
  if (parent === undefined || ['users/~self', 'users/-', `users/${ctx.user.id}`].includes(parent)) return;
  throw new RequestError(403, `cannot act on behalf of ${parent}`);
}

/** Opaque to clients: the sort keys of the last item, so later updates cannot repeat an item. */
function encodePageToken(keys: SortKeys): string {
  return Buffer.from(`${keys.updatedAtMs}:${keys.id}`).toString('base64url');
}

function decodePageToken(token: string): SortKeys {
  const match = /^(\d+):(\d+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  if (!match) throw new RequestError(400, 'invalid page token');
  return { updatedAtMs: Number(match[1]), id: Number(match[2]), createdAtMs: 0 };
}

/** protobuf-JSON parsers accept the original snake_case field names as well. */
function camelizeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelizeKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()), camelizeKeys(v)]),
  );
}
