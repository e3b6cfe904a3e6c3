import type { Dispatcher } from 'undici';
import { linkedAbort, linkedSignal, type AbortLink } from './linked-signal.js';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { AbortedError, ConnectionError, HttpStatusError, OutcomeUnknownError, ProtocolError, type RequestContext } from '../errors/errors.js';
import { excerpt, redact } from '../redact.js';
import {
  RetryPolicySchema,
  backoffDelay,
  isNotActedStatus,
  isNotSentCode,
  isRetryableStatus,
  parseRetryAfter,
  type RetryPolicy,
} from './retry-policy.js';
import { Agent, errors as undiciErrors, request } from './undici.js';
import { WholeReplyRequest, type WholeReplyCaps } from './whole-reply.js';

export interface TransportOptions {
  /** Base URL of the instance, without a trailing slash. */
  endpoint: string;
  /** Headers sent on every request (credentials, user agent, extra headers). */
  headers: Record<string, string>;
  /** Timeout of one attempt, from sending to the end of the body (ms). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Most connections kept open to the origin. */
  connections?: number;
  /** Source of jitter; injectable so tests are deterministic. */
  random?: () => number;
  /** Called before each retry wait (for logs and progress). */
  onRetry?: (info: RetryInfo) => void;
  /** Largest whole reply body read (bytes); a larger one is a protocol error, not retried. */
  maxReplyBytes?: number;
  /**
   * Awaited before each attempt is sent (after `onAttempt`): a run's recorder commits what it recorded,
   * so nothing goes out before what it depends on is committed. Its rejection fails the request; the
   * policy is told whether the request is a `cleanup`, and decides whether such a one may go anyway.
   */
  beforeSend?: BeforeSend;
}

export type BeforeSend = (request: { cleanup: boolean }) => Promise<void> | undefined;

export interface RetryInfo {
  context: RequestContext;
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface RequestSpec {
  operation: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** Path below the endpoint, beginning with `/`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** True for requests that create something: retried only when the server provably did not act. */
  creates?: boolean;
  /**
   * Stops the request. A create is stopped only between attempts: cutting one in flight would leave a
   * conversation on the server that nobody recorded, so the attempt under way is let finish.
   */
  signal?: AbortSignal;
  timeoutMs?: number;
  /**
   * Keep retrying transient failures past the attempt limit, with the same backoff, until `signal` aborts
   * (e.g. the item's own deadline): a poll must not end an item over one 500 or reset. A create still
   * retries only what provably did not act.
   */
  persistent?: boolean;
  /**
   * Called as each attempt starts, once its timeout is running and before anything is sent: a time read
   * in it is one the attempt's timeout cannot precede (a send that may land is bounded by it).
   */
  onAttempt?: () => void;
  /**
   * Given up while the request waits to be retried after an attempt the server provably did not act on
   * (429, 503, not sent), and taken again before the next attempt: a create's concurrency slot, which
   * it need not hold while nothing of it is on the server.
   */
  idle?: Idle;
  /**
   * Undoes work on the server (a cancel) and depends on nothing being recorded: `beforeSend` is told so,
   * and may let it go even when nothing more can be recorded.
   */
  cleanup?: boolean;
}

/** Something a request holds only while it may be acting on the server. */
export interface Idle {
  leave(): void;
  /** Rejects with AbortedError when `signal` aborts first. */
  retake(signal: AbortSignal): Promise<void>;
}

const NEVER = new AbortController().signal;

/** One attempt's request, as the retry loop sends it: its timeout and the caller's signal are linked to it until disposed. */
interface Attempt<T> {
  link: AbortLink;
  /** A 2xx reply's result; any other status with its headers and the beginning of its body. */
  send(options: Dispatcher.DispatchOptions, attempts: number): Promise<{ ok: T } | { status: number; headers: Record<string, string>; text: string }>;
}

export interface Reply {
  status: number;
  headers: Record<string, string>;
  text: string;
  attempts: number;
}

export interface StreamReply {
  status: number;
  headers: Record<string, string>;
  body: Readable;
  /**
   * `performance.now()` as the answered attempt went out: after the wait for the group commit and any
   * retry's backoff, which are dsbench's waits, not the server's time.
   */
  sentAt: number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
/** Far above any real reply (a long answer is tens of KB), far below what would exhaust memory. */
export const DEFAULT_MAX_REPLY_BYTES = 64 * 1024 * 1024;
const PLAIN_PATH = /^\/[\w\-.~%/:@]*$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;
/** An error reply is only quoted, so only its beginning is read. */
const ERROR_BODY_BYTES = 64 * 1024;

/** One keep-alive pool per origin, one retry policy, typed errors: the only way dsbench talks HTTP. */
export class Transport {
  readonly endpoint: string;
  private readonly origin: string;
  /** The endpoint's own path (an instance behind a path prefix), without a trailing slash. */
  private readonly basePath: string;
  private readonly dispatcher: Dispatcher;
  /** Headers of every request, and of one with a JSON body: made once, not per request. */
  private readonly headers: Record<string, string>;
  private readonly jsonHeaders: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly policy: RetryPolicy;
  private readonly random: () => number;
  private readonly onRetry: ((info: RetryInfo) => void) | undefined;
  private readonly maxReplyBytes: number;
  private readonly caps: WholeReplyCaps;
  private readonly beforeSend: BeforeSend | undefined;

  constructor(options: TransportOptions) {
    this.endpoint = options.endpoint.replace(/\/+$/, '');
    const url = new URL(this.endpoint);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.headers = { accept: 'application/json', ...options.headers };
    this.jsonHeaders = { ...this.headers, 'content-type': 'application/json' };
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.policy = RetryPolicySchema.parse(options.retry ?? {});
    this.random = options.random ?? Math.random;
    this.onRetry = options.onRetry;
    this.maxReplyBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
    this.caps = { ok: this.maxReplyBytes, error: ERROR_BODY_BYTES };
    this.beforeSend = options.beforeSend;
    this.dispatcher = new Agent({
      connections: options.connections ?? 64,
      keepAliveTimeout: 10_000,
      // Timeouts are ours (per attempt), so undici's own must not fire first.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  /** Sends a request and returns a 2xx reply with its whole body; anything else throws a typed error. */
  request(spec: RequestSpec): Promise<Reply> {
    return this.withRetries(spec, (parent, timeoutMs) => this.wholeReply(spec, parent, timeoutMs, (reply) => reply));
  }

  /** Like `request`, and parses the body as JSON (in the attempt: one promise fewer on every request). */
  requestJson(spec: RequestSpec): Promise<{ reply: Reply; json: unknown }> {
    return this.withRetries(spec, (parent, timeoutMs) => this.wholeReply(spec, parent, timeoutMs, (reply) => ({ reply, json: jsonOf(reply, spec) })));
  }

  /**
   * Opens a streaming GET and returns once a 2xx status arrived, body unread. The per-attempt timeout
   * covers only the wait for the status: the caller owns stall and overall timeouts of the body.
   */
  async stream(spec: RequestSpec): Promise<StreamReply> {
    return this.withRetries<StreamReply>(spec, (parent, timeoutMs) => {
      const link = linkedSignal(parent, timeoutMs);
      return {
        link,
        send: async (options) => {
          const sentAt = performance.now();
          const res = await request(this.dispatcher, { ...options, signal: link.signal });
          const headers = flattenHeaders(res.headers);
          if (res.statusCode >= 200 && res.statusCode < 300) return { ok: { status: res.statusCode, headers, body: res.body, sentAt } };
          return { status: res.statusCode, headers, text: await readPrefix(res, ERROR_BODY_BYTES) };
        },
      };
    });
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  private async withRetries<T>(spec: RequestSpec, begin: (parent: AbortSignal | undefined, timeoutMs: number) => Attempt<T>): Promise<T> {
    const creates = spec.creates ?? false;
    const persistent = spec.persistent === true && spec.signal !== undefined;
    for (let attempt = 1; ; attempt++) {
      if (spec.signal?.aborted) throw new AbortedError(`${spec.operation} aborted`);
      // A create is never abandoned mid-flight by the caller's signal: only its own timeout ends it.
      const parent = creates ? undefined : spec.signal;
      const timeoutMs = spec.timeoutMs ?? this.timeoutMs;
      const { link, send } = begin(parent, timeoutMs);
      spec.onAttempt?.();
      const committing = this.beforeSend?.({ cleanup: spec.cleanup === true });
      if (committing) {
        try {
          await committing;
        } catch (error) {
          link.dispose();
          throw error;
        }
      }
      let retryReason: string;
      let retryAfterMs: number | undefined;
      let notActed: boolean;
      try {
        const reply = await send(
          {
            origin: this.origin,
            path: this.pathOf(spec),
            method: spec.method,
            headers: this.headersFor(spec),
            body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
          },
          attempt,
        );
        if ('ok' in reply) return reply.ok;
        const { status, headers, text } = reply;
        // The request's context is made only for an error or a retry: most requests need none.
        if (!isRetryableStatus(status, creates, persistent) || this.lastAttempt(attempt, persistent)) {
          throw new HttpStatusError(contextOf(spec), status, serverMessage(text, headers), excerpt(text), attempt);
        }
        retryAfterMs = parseRetryAfter(headers['retry-after']);
        if (retryAfterMs !== undefined && retryAfterMs > this.policy.maxDelayMs) {
          throw new HttpStatusError(
            contextOf(spec),
            status,
            `${serverMessage(text, headers)} (Retry-After ${seconds(retryAfterMs)} exceeds the retry delay cap of ${seconds(this.policy.maxDelayMs)})`,
            excerpt(text),
            attempt,
          );
        }
        retryReason = `HTTP ${status}`;
        notActed = isNotActedStatus(status);
      } catch (error) {
        if (error instanceof HttpStatusError || error instanceof ProtocolError) throw error;
        if (spec.signal?.aborted && !creates) throw new AbortedError(`${spec.operation} aborted`);
        const timedOut = link.timedOut;
        const code = timedOut ? 'TIMEOUT' : errorCode(error);
        const detail = timedOut
          ? `no complete reply within ${spec.timeoutMs ?? this.timeoutMs} ms`
          : redact(error instanceof Error ? error.message : String(error));
        const notSent = isNotSentCode(code);
        if (creates && !notSent) throw new OutcomeUnknownError(contextOf(spec), code, detail, { cause: error });
        if (this.lastAttempt(attempt, persistent)) throw new ConnectionError(contextOf(spec), code, detail, attempt, { cause: error });
        retryReason = code;
        notActed = notSent;
      } finally {
        link.dispose();
      }
      const delayMs = retryAfterMs ?? backoffDelay(attempt, this.policy, this.random);
      this.onRetry?.({ context: contextOf(spec), attempt, delayMs, reason: retryReason });
      const idle = notActed ? spec.idle : undefined;
      idle?.leave();
      try {
        await sleep(delayMs, undefined, spec.signal ? { signal: spec.signal } : undefined);
      } catch {
        throw new AbortedError(`${spec.operation} aborted`);
      }
      await idle?.retake(spec.signal ?? NEVER);
    }
  }

  private lastAttempt(attempt: number, persistent: boolean): boolean {
    return !persistent && attempt >= this.policy.maxAttempts;
  }

  /** An attempt whose whole reply is read; `then` makes a 2xx reply the request's result. */
  private wholeReply<T>(spec: RequestSpec, parent: AbortSignal | undefined, timeoutMs: number, then: (reply: Reply) => T): Attempt<T> {
    const call = new WholeReplyRequest(this.caps);
    return {
      link: linkedAbort(parent, timeoutMs, call),
      send: (options, attempts) =>
        call.send(this.dispatcher, options).then(({ status, headers, text }) => {
          if (status >= 300) return { status, headers, text: text ?? '' };
          if (text === undefined) {
            throw new ProtocolError(
              contextOf(spec),
              `the reply body is larger than the cap of ${this.maxReplyBytes} bytes (--max-reply-size); no real reply is that large, so it was not retried`,
              '',
            );
          }
          return { ok: then({ status, headers, text, attempts }) };
        }),
    };
  }

  private pathOf(spec: RequestSpec): string {
    const path = this.basePath + spec.path;
    // A path that URL parsing would leave as is (the API's own paths) is used without parsing it.
    if (spec.query === undefined && PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path)) return path;
    const url = new URL(path, this.origin);
    for (const [key, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.pathname + url.search;
  }

  private headersFor(spec: RequestSpec): Record<string, string> {
    const headers = spec.body === undefined ? this.headers : this.jsonHeaders;
    return spec.headers === undefined ? headers : { ...headers, ...spec.headers, ...(spec.body !== undefined && { 'content-type': 'application/json' }) };
  }
}

/** A 2xx body as JSON (an empty one as `{}`); not JSON is a protocol error, not retried. */
function jsonOf(reply: Reply, spec: RequestSpec): unknown {
  if (reply.text.trim() === '') return {};
  try {
    return JSON.parse(reply.text);
  } catch {
    throw new ProtocolError(contextOf(spec), `the body is not JSON (HTTP ${reply.status})`, excerpt(reply.text));
  }
}

/** The first `max` bytes of a body, the rest dropped. */
async function readPrefix(res: Dispatcher.ResponseData, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= max) {
      res.body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks, size).subarray(0, max).toString('utf8');
}

function seconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${Number((ms / 1000).toFixed(3))} s`;
}

function contextOf(spec: RequestSpec): RequestContext {
  return { operation: spec.operation, method: spec.method, endpoint: spec.path };
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) out[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function errorCode(error: unknown): string {
  if (error instanceof undiciErrors.UndiciError) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return cause?.code ?? error.code;
  }
  const err = error as { code?: string; cause?: { code?: string } };
  return err.code ?? err.cause?.code ?? 'ECONNECTION';
}

/** The server's own words: a JSON `message`, an HTML page's title, or the first line of plain text. */
function serverMessage(text: string, headers: Record<string, string>): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  try {
    const parsed = JSON.parse(trimmed) as { message?: unknown; error?: unknown; code?: unknown };
    const message = typeof parsed.message === 'string' ? parsed.message : typeof parsed.error === 'string' ? parsed.error : '';
    const code = typeof parsed.code === 'string' ? `${parsed.code}: ` : '';
    if (message) return redact(code + message);
  } catch {
    // not JSON: fall through to text forms
  }
  if ((headers['content-type'] ?? '').includes('html') || /^<(!doctype|html)/i.test(trimmed)) {
    const title = /<title>([^<]*)<\/title>/i.exec(trimmed)?.[1]?.trim();
    return `non-JSON error page${title ? ` "${redact(title)}"` : ''} (from a proxy?)`;
  }
  return excerpt(trimmed.split('\n')[0] ?? '', 200);
}
