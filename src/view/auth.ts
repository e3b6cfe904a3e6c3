import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

// Off loopback every request must carry the viewer's token: `Authorization: Bearer <token>`, or the cookie
// set when a page was first opened with `?token=<token>`. On loopback the Host header must name loopback,
// so a web page elsewhere cannot reach the viewer through a rebound DNS name.

export const TOKEN_COOKIE = 'dsbench_view_token';

const digest = (text: string) => createHash('sha256').update(text).digest();

export function sameToken(given: string, token: string): boolean {
  return timingSafeEqual(digest(given), digest(token));
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function cookieToken(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === TOKEN_COOKIE) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

/** The token a request carries, from its header, cookie or query. */
export function requestToken(req: IncomingMessage, url: URL): { token: string | undefined; fromQuery: boolean } {
  const header = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (header) return { token: header.trim(), fromQuery: false };
  const cookie = cookieToken(req);
  if (cookie) return { token: cookie, fromQuery: false };
  const query = url.searchParams.get('token');
  return { token: query ?? undefined, fromQuery: query !== null };
}

/** Whether a loopback viewer's request names a loopback host (DNS rebinding). */
export function loopbackHostHeader(req: IncomingMessage): boolean {
  const host = (req.headers.host ?? '').replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
  return isLoopback(host);
}
