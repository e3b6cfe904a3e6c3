import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AfterActionFault } from './faults.js';
import type { EmulatorUser, Scope } from './users.js';

export interface RouteContext {
  readonly user: EmulatorUser;
  readonly scopes: readonly Scope[];
  readonly operation: string;
  readonly url: URL;
  /** Values of the `:name` segments of the route's path. */
  readonly params: Readonly<Record<string, string>>;
  /** A fault to apply once the handler acted; `sendJson` honours it. */
  readonly afterAction: AfterActionFault | undefined;
  /** Aborted when the emulator stops. */
  readonly signal: AbortSignal;
  /** The client's item a new conversation belongs to (ITEM_KEY_HEADER), if it named one. */
  readonly itemKey: string | undefined;
  /** The request's trace, when it asked for one (tracing.ts). */
  readonly trace?: TraceScope | undefined;
}

/** What a traced request's handler may add to its trace: the conversation it made. */
export interface TraceScope {
  readonly id: string;
  conversation(id: number): void;
}

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, ctx: RouteContext) => void | Promise<void>;

/** Writes an error in the route's own wire format (faults, missing scope, handler crash). */
export type ErrorWriter = (res: ServerResponse, status: number, message: string) => void;

export interface Route {
  method: string;
  /** Exact path, with `:name` segments (`/.api/deepsearch/v1/:id`) or `*name` ones that span slashes (`/*repo/-/raw`). */
  path: string;
  /** Counter name, e.g. `legacy.create`. */
  operation: string;
  handler: RouteHandler;
  /** Checked before the handler: `read` is satisfied by a read or a write scope. */
  scope?: 'read' | 'write';
  /** Default: plain text, like the frontend. */
  errors?: ErrorWriter;
  /** The fault rates and injections never touch it (no draw is taken for it). */
  spared?: boolean;
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'wrong-method'; route: Route; allow: string[] }
  | { kind: 'none' };

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
}

export class Router {
  private readonly compiled: CompiledRoute[];

  constructor(routes: readonly Route[]) {
    this.compiled = routes.map(compile);
  }

  get routes(): Route[] {
    return this.compiled.map((c) => c.route);
  }

  match(method: string, pathname: string): RouteMatch {
    const path = pathname.length > 1 ? pathname.replace(/\/$/, '') : pathname;
    const onPath = this.compiled.flatMap((c) => {
      const m = c.pattern.exec(path);
      if (!m) return [];
      const params = Object.fromEntries(c.names.map((name, i) => [name, decodeURIComponent(m[i + 1] ?? '')]));
      return [{ route: c.route, params }];
    });
    const first = onPath[0];
    if (!first) return { kind: 'none' };
    const exact = onPath.find((m) => m.route.method === method);
    if (exact) return { kind: 'found', ...exact };
    return { kind: 'wrong-method', route: first.route, allow: [...new Set(onPath.map((m) => m.route.method))] };
  }
}

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':') && !segment.startsWith('*')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(segment.slice(1));
      return segment.startsWith('*') ? '(.+?)' : '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), names };
}

export function hasScope(scopes: readonly Scope[], need: 'read' | 'write'): boolean {
  return scopes.includes('externalapi:write') || (need === 'read' && scopes.includes('externalapi:read'));
}
