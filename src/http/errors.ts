import { ExitCode } from './exit-codes.js';

/** Base of every error a user can see: it carries the exit code the CLI ends with. */
export class DsbenchError extends Error {
  readonly exitCode: ExitCode;

  constructor(message: string, exitCode: ExitCode, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.exitCode = exitCode;
  }
}

/** Bad flags, bad suite, bad configuration: the user must change what they asked for. */
export class UsageError extends DsbenchError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, ExitCode.usage, options);
  }
}

export interface RequestContext {
  /** Logical operation, e.g. `legacy.create` or `versioned.GetConversation`. */
  operation: string;
  method: string;
  /** Path without query string: query strings may carry read tokens. */
  endpoint: string;
}

function where(ctx: RequestContext): string {
  return `${ctx.operation} (${ctx.method} ${ctx.endpoint})`;
}

/** The server answered with a non-2xx status after any retries. */
export class HttpStatusError extends DsbenchError {
  readonly status: number;
  readonly context: RequestContext;
  /** Redacted, shortened body. */
  readonly bodyExcerpt: string;
  /** Message the server gave (JSON `message` field or plain text), redacted. */
  readonly serverMessage: string;
  readonly attempts: number;

  constructor(ctx: RequestContext, status: number, serverMessage: string, bodyExcerpt: string, attempts: number) {
    const hint = hintForStatus(status);
    super(
      `${where(ctx)} failed with HTTP ${status}${serverMessage ? `: ${serverMessage.replace(/[.\s]+$/, '')}` : ''}` +
        (attempts > 1 ? ` (after ${attempts} attempts)` : '') +
        (hint ? `. ${hint}` : ''),
      exitCodeForStatus(status),
    );
    this.status = status;
    this.context = ctx;
    this.bodyExcerpt = bodyExcerpt;
    this.serverMessage = serverMessage;
    this.attempts = attempts;
  }
}

/** The exit code of a non-2xx reply: a request the server rejected as invalid is usage, anything else unreachable. */
export function exitCodeForStatus(status: number): ExitCode {
  if (status === 400 || status === 404 || status === 405 || status === 409 || status === 413 || status === 415 || status === 422) {
    return ExitCode.usage;
  }
  return ExitCode.unreachable;
}

function hintForStatus(status: number): string {
  switch (status) {
    case 401:
      return 'Check SRC_ACCESS_TOKEN (or DSBENCH_TOKEN_<NAME>) for this endpoint.';
    case 403:
      return 'The token lacks a permission: the versioned API needs scope externalapi:read for reads and externalapi:write for writes.';
    case 404:
      return 'Check the conversation id or name, and that --api matches what the instance serves.';
    case 429:
      return 'The instance is rate limiting: lower the concurrency or raise the retry limits.';
    default:
      return status >= 500 ? 'The instance or a proxy in front of it failed; try again later.' : '';
  }
}

/** No HTTP reply: refused, reset, DNS failure, timeout. */
export class ConnectionError extends DsbenchError {
  readonly context: RequestContext;
  readonly code: string;
  readonly attempts: number;

  constructor(ctx: RequestContext, code: string, detail: string, attempts: number, options?: { cause?: unknown }) {
    super(
      `${where(ctx)}: could not reach the instance (${code}: ${detail})` +
        (attempts > 1 ? ` after ${attempts} attempts` : '') +
        '. Check --endpoint / SRC_ENDPOINT and that the instance is up.',
      ExitCode.unreachable,
      options,
    );
    this.context = ctx;
    this.code = code;
    this.attempts = attempts;
  }
}

/**
 * The connection broke after a request that creates something was sent: the server may or may not
 * have acted on it, so it was not retried (a retry could create a second conversation).
 */
export class OutcomeUnknownError extends DsbenchError {
  readonly context: RequestContext;
  readonly code: string;

  constructor(ctx: RequestContext, code: string, detail: string, options?: { cause?: unknown }) {
    super(
      `${where(ctx)}: the connection broke after the request was sent (${code}: ${detail}); ` +
        'the outcome is unknown, so it was not retried. List conversations to see whether it was created.',
      ExitCode.unreachable,
      options,
    );
    this.context = ctx;
    this.code = code;
  }
}

/** A 2xx reply that does not have what the client relies on: the instance's fault (or a proxy's), not dsbench's. */
export class ProtocolError extends DsbenchError {
  readonly context: RequestContext;
  readonly bodyExcerpt: string;

  constructor(ctx: RequestContext, problem: string, bodyExcerpt: string) {
    super(
      `${where(ctx)}: unexpected reply: ${problem}. Is --api right for this instance, and is a proxy rewriting replies?`,
      ExitCode.unreachable,
    );
    this.context = ctx;
    this.bodyExcerpt = bodyExcerpt;
  }
}

/** A gate, history or report had nothing to judge: no pairs, too few pairs, no matching run. */
export class NothingToCompareError extends DsbenchError {
  constructor(message: string) {
    super(message, ExitCode.nothingCompared);
  }
}

/** The user (or a signal) asked to stop. */
export class AbortedError extends DsbenchError {
  constructor(message = 'aborted') {
    super(message, ExitCode.aborted);
  }
}
