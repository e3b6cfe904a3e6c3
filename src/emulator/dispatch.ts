import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuthResult } from './auth.js';
import type { Counters } from './counters.js';
import { isBeforeAction, writeBeforeActionFault, type FaultPlanner } from './faults.js';
import { sendText } from './http-io.js';
import { EMULATOR_HEADER, ITEM_KEY_HEADER } from '../emulator-identity.js';
import { hasScope, type ErrorWriter, type RouteContext, type Router } from './routes.js';
import { type Tracer, wantsTrace } from './tracing.js';

export const UNMATCHED_OPERATION = 'unmatched';

export interface DispatchDeps {
  router: Router;
  authenticate: (header: string | undefined) => AuthResult;
  faults: FaultPlanner;
  requests: Counters;
  faultCounts: Counters;
  signal: AbortSignal;
  /** The virtual clock: every reply's Date header tells it, as a real server's tells its own clock. */
  now: () => number;
  /** Traces requests that ask for it. */
  tracer: Tracer;
}

const writePlainError: ErrorWriter = (res, status, message) => sendText(res, status, message);

/**
 * The request pipeline: count, transport fault, frontend auth, method, scope, handler.
 * Counting comes first so that even a faulted or rejected request shows in the counters.
 */
export function createDispatcher(deps: DispatchDeps): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    res.setHeader('Date', new Date(deps.now()).toUTCString());
    res.setHeader(EMULATOR_HEADER, '1');
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    const match = deps.router.match(req.method ?? 'GET', url.pathname);
    if (match.kind === 'none') {
      deps.requests.increment(UNMATCHED_OPERATION);
      const auth = deps.authenticate(req.headers.authorization);
      sendText(res, auth.ok ? 404 : auth.status, auth.ok ? '404 page not found' : auth.text);
      return;
    }
    const { route } = match;
    deps.requests.increment(route.operation);
    const writeError = (status: number, message: string): void =>
      (route.errors ?? writePlainError)(res, status, message);

    const fault = route.spared ? undefined : deps.faults.next(route.operation);
    if (fault) deps.faultCounts.increment(`${route.operation}.${fault.kind}`);
    if (fault?.kind === 'slow' && !(await delay(fault.delayMs, deps.signal))) return;
    if (fault && isBeforeAction(fault)) {
      writeBeforeActionFault(res, fault, writeError);
      return;
    }

    const auth = deps.authenticate(req.headers.authorization);
    if (!auth.ok) {
      sendText(res, auth.status, auth.text);
      return;
    }
    if (match.kind === 'wrong-method') {
      res.writeHead(405, { Allow: match.allow.join(', ') });
      res.end();
      return;
    }
    const { user, scopes } = auth.principal;
    if (route.scope && !hasScope(scopes, route.scope)) {
      const needed = route.scope === 'read' ? 'externalapi:read or externalapi:write' : 'externalapi:write';
      writeError(403, `the access token lacks the scope ${needed}`);
      return;
    }
    const writes = route.scope === 'write' || (route.scope === undefined && req.method !== 'GET');
    const { actDelayMs } = deps.faults.settings;
    if (actDelayMs > 0 && writes && !(await delay(actDelayMs, deps.signal))) return;
    // A server does not act for a client that is gone (a Go server's request context is cancelled when
    // its connection closes): a request reached late, after its sender gave up or died, changes nothing.
    if (writes && (await clientGone(req))) {
      req.socket.destroy();
      return;
    }
    const afterAction = fault?.kind === 'resetAfterAction' || fault?.kind === 'dropField' ? fault : undefined;
    const traced = wantsTrace(req, url) ? deps.tracer.begin(res, route.operation) : undefined;
    const ctx: RouteContext = {
      user,
      scopes,
      operation: route.operation,
      url,
      params: match.params,
      afterAction,
      signal: deps.signal,
      itemKey: headerValue(req.headers[ITEM_KEY_HEADER]),
      trace: traced?.scope,
    };
    try {
      await route.handler(req, res, ctx);
    } catch {
      if (res.headersSent) res.destroy();
      else writeError(500, 'internal error');
    } finally {
      traced?.end();
    }
  };
}

/**
 * Whether the client closed its connection. Input already received (a close right behind the request, as
 * a busy server finds it from a client that died or gave up meanwhile) is read first: the next turn of
 * the event loop polls for it.
 */
async function clientGone(req: IncomingMessage): Promise<boolean> {
  for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
  return req.socket.destroyed || req.socket.readableEnded;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** False when the emulator stopped during the delay. */
async function delay(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
