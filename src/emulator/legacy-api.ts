import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseRequest, readJsonBody, RequestError, sendJson, sendText } from './http-io.js';
import {
  LEGACY_DEFAULT_PAGE_SIZE,
  LegacyCreateBodySchema,
  LegacyFollowUpBodySchema,
  LegacyListQuerySchema,
  toLegacyConversation,
  toLegacyQuestion,
} from './legacy-wire.js';
import { firstPage, where, type SortKeys, type SortName } from './listing.js';
import type { ApiDeps } from './api-deps.js';
import type { ErrorWriter, Route, RouteContext } from './routes.js';
import { DomainError, type ConversationService, type DomainErrorKind } from './service.js';
import type { ConversationRecord } from './store.js';

export const LEGACY_BASE = '/.api/deepsearch/v1';

/** Legacy error bodies are JSON `{message}`. */
export const writeLegacyError: ErrorWriter = (res, status, message) => sendJson(res, status, { message });

/** A follow-up while a question is processing conflicts with the conversation's state: 409. */
const DOMAIN_STATUS: Record<DomainErrorKind, number> = { invalid: 400, not_found: 404, busy: 409 };

type Reply = [status: number, body: unknown];

interface LegacyCall {
  req: IncomingMessage;
  ctx: RouteContext;
  userId: number;
}

export function legacyRoutes(deps: ApiDeps): Route[] {
  const { service } = deps;
  const renderer = (userId: number) => {
    const view = { viewerId: userId, publicUrl: deps.publicUrl, quota: service.quotaUsage(userId) };
    return (c: ConversationRecord) => toLegacyConversation(c, view);
  };

  return [
    legacyRoute('POST', LEGACY_BASE, 'legacy.create', async ({ req, ctx, userId }) => {
      const body = parseRequest(LegacyCreateBodySchema, await readJsonBody(req));
      const conversation = service.ask(userId, body.question, ctx.itemKey);
      ctx.trace?.conversation(conversation.id);
      return [202, renderer(userId)(conversation)];
    }),

    legacyRoute('GET', LEGACY_BASE, 'legacy.list', ({ ctx, userId }) => {
      const query = parseRequest(LegacyListQuerySchema, Object.fromEntries(ctx.url.searchParams));
      const after = query.page_after === undefined ? undefined : cursorKeys(service, query.sort, query.page_after);
      const matching = where(
        service.visible(userId, query.sort, after, query.filter_read_token),
        (c) =>
          (query.filter_id === undefined || c.id === query.filter_id) &&
          (query.filter_user_id === undefined || c.userId === query.filter_user_id) &&
          (query.filter_read_token === undefined || c.readToken === query.filter_read_token) &&
          (query.filter_is_starred === undefined || c.starred === query.filter_is_starred),
      );
      const page = firstPage(matching, query.page_first ?? LEGACY_DEFAULT_PAGE_SIZE);
      return [200, page.items.map(renderer(userId))];
    }),

    legacyRoute('GET', `${LEGACY_BASE}/:id`, 'legacy.get', ({ ctx, userId }) => {
      const conversation = service.get(userId, idParam(ctx, 'id'));
      return [200, renderer(userId)(conversation)];
    }),

    legacyRoute('DELETE', `${LEGACY_BASE}/:id`, 'legacy.delete', ({ ctx, userId }) => {
      service.remove(userId, idParam(ctx, 'id'));
      return [200, {}];
    }),

    legacyRoute('POST', `${LEGACY_BASE}/:id/questions`, 'legacy.addQuestion', async ({ req, ctx, userId }) => {
      const id = idParam(ctx, 'id');
      const body = parseRequest(LegacyFollowUpBodySchema, await readJsonBody(req));
      if (body.conversation_id !== id) {
        throw new RequestError(400, 'conversation_id must equal the conversation id of the path');
      }
      const question = service.followUp(userId, id, body.question);
      return [202, deps.followUpReply === 'question' ? toLegacyQuestion(question) : renderer(userId)(service.get(userId, id))];
    }),

    legacyRoute('POST', `${LEGACY_BASE}/:id/questions/:qid/cancel`, 'legacy.cancel', ({ ctx, userId }) => {
      const conversation = service.cancel(userId, idParam(ctx, 'id'), idParam(ctx, 'qid'));
      return [200, renderer(userId)(conversation)];
    }),
  ];
}

function legacyRoute(
  method: string,
  path: string,
  operation: string,
  action: (call: LegacyCall) => Reply | Promise<Reply>,
): Route {
  const handler = async (req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> => {
    const requestedWith = req.headers['x-requested-with'];
    if (typeof requestedWith !== 'string' || requestedWith.trim() === '') {
      sendText(res, 400, 'X-Requested-With header is required');
      return;
    }
    try {
      const [status, body] = await action({ req, ctx, userId: ctx.user.id });
      sendJson(res, status, body, ctx);
    } catch (error) {
      if (error instanceof RequestError) writeLegacyError(res, error.status, error.message);
      else if (error instanceof DomainError) writeLegacyError(res, DOMAIN_STATUS[error.kind], error.message);
      else throw error;
    }
  };
  return { method, path, operation, handler, errors: writeLegacyError };
}

function idParam(ctx: RouteContext, name: string): number {
  const raw = ctx.params[name] ?? '';
  if (!/^\d+$/.test(raw)) throw new RequestError(400, `${name} must be a non-negative integer`);
  return Number(raw);
}

/**
 * `page_after` is the id of the last conversation of the previous page (the reply is a bare
 * array, so that is all a client has). For time sorts the named conversation's keys are used,
 * deleted ones included.
 */
function cursorKeys(service: ConversationService, sort: SortName, afterId: number): SortKeys {
  if (sort === 'id' || sort === '-id') return { id: afterId, createdAtMs: 0, updatedAtMs: 0 };
  const target = service.cursorTarget(afterId);
  if (!target) throw new RequestError(400, 'page_after does not name a conversation');
  return target;
}
