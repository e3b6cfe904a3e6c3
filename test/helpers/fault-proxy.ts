// A misbehaving proxy on port 0 in front of an instance (the emulator): per request it forwards, answers a
// status of its own, resets the connection before or after the server acted, or delays delivery, even
// after the client is gone (a proxy that still delivers a dead process's request).
import { createServer, request, type IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { listenLoopback } from './server.js';

export type ProxyAction =
  /** Forwarded `delayMs` late; its reply held `replyDelayMs` after the server answered. */
  | { kind: 'forward'; delayMs?: number; replyDelayMs?: number }
  /** Answered by the proxy; the server never sees the request. */
  | { kind: 'status'; status: number }
  /** Answered by the proxy with this body (a hostile server's reply; JSON unless told); the server never sees the request. */
  | { kind: 'reply'; status: number; body: string | (() => Promise<string>); contentType?: string }
  /** Never answered: the connection stays open until the client gives up or the proxy closes. */
  | { kind: 'hang' }
  /** The connection is reset before the request is forwarded: the server never acts. */
  | { kind: 'reset' }
  /** The client's connection is reset at once; the request still reaches the server `delayMs` later. */
  | { kind: 'resetThenDeliver'; delayMs: number }
  /** Held unanswered (the client times out) and delivered once `until` settles, the client long gone. */
  | { kind: 'holdThenDeliver'; until: Promise<unknown> };

export interface ProxiedRequest {
  method: string;
  url: string;
  body: string;
  /** e.g. `legacy.get`, `versioned.GetConversation`. */
  operation: string;
}

export interface FaultProxy {
  url: string;
  /** Actions taken so far, by kind. */
  counts: Record<string, number>;
  close(): Promise<void>;
}

/** `versioned.<Method>`, `legacy.create|get|list|addQuestion|cancel|delete` or `graphql`, from method and path. */
export function operationOf(method: string, url: string): string {
  const path = url.split('?')[0] ?? '';
  if (path.endsWith('/.api/graphql')) return 'graphql';
  const versioned = /\/([A-Za-z]+)$/.exec(path);
  if (path.includes('deepsearch.v1') || path.includes('DeepSearchService')) return `versioned.${versioned?.[1] ?? '?'}`;
  if (/\/questions\/\d+\/cancel$|\/cancel$/.test(path)) return 'legacy.cancel';
  if (/\/questions$/.test(path)) return 'legacy.addQuestion';
  if (/\/\d+$/.test(path)) return method === 'DELETE' ? 'legacy.delete' : 'legacy.get';
  return method === 'POST' ? 'legacy.create' : 'legacy.list';
}

export async function startFaultProxy(upstream: string, decide: (req: ProxiedRequest, n: number) => ProxyAction): Promise<FaultProxy> {
  const target = new URL(upstream);
  const counts: Record<string, number> = {};
  let n = 0;
  const forward = (req: IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>((resolve, reject) => {
      const out = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
        async (res) => {
          const chunks: Buffer[] = [];
          for await (const chunk of res) chunks.push(chunk as Buffer);
          resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) });
        },
      );
      out.on('error', reject);
      out.end(body);
    });
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const action = decide({ method: req.method ?? '', url: req.url ?? '', body: body.toString('utf8'), operation: operationOf(req.method ?? '', req.url ?? '') }, ++n);
    counts[action.kind] = (counts[action.kind] ?? 0) + 1;
    try {
      if (action.kind === 'status') {
        res.writeHead(action.status, { 'content-type': 'application/json' }).end(JSON.stringify({ message: `proxy says ${action.status}` }));
        return;
      }
      if (action.kind === 'reply') {
        const text = typeof action.body === 'string' ? action.body : await action.body();
        res.writeHead(action.status, { 'content-type': action.contentType ?? 'application/json' }).end(text);
        return;
      }
      if (action.kind === 'hang') return;
      if (action.kind === 'reset') {
        req.socket.destroy();
        return;
      }
      if (action.kind === 'resetThenDeliver') {
        req.socket.destroy();
        await sleep(action.delayMs);
        await forward(req, body).catch(() => undefined);
        return;
      }
      if (action.kind === 'holdThenDeliver') {
        await action.until;
        await forward(req, body).catch(() => undefined);
        req.socket.destroy();
        return;
      }
      if (action.delayMs) await sleep(action.delayMs);
      const reply = await forward(req, body);
      if (action.replyDelayMs) await sleep(action.replyDelayMs);
      const { 'transfer-encoding': _te, connection: _c, ...headers } = reply.headers;
      res.writeHead(reply.status, headers).end(reply.body);
    } catch {
      req.socket.destroy();
    }
  });
  return { ...(await listenLoopback(server)), counts };
}
