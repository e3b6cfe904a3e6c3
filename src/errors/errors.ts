import { ExitCode } from './exit-codes.js';

// Every error class a user can meet, in one leaf (as undici's lib/core/errors.js): any layer recognises a failure
// by its class and the CLI ends with the exit code it carries (k6's errext).

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

/**
 * A lookup of a lost send could not finish (conversations it had to read kept failing, or its deadline
 * passed): whether the send acted is unknown, so its item is kept unfinished for a resume to look again.
 */
export class LookupIncompleteError extends DsbenchError {
  constructor(message: string) {
    super(message, ExitCode.unreachable);
  }
}

/**
 * A create's reply named a conversation another item owns, or one whose first question is not the text
 * sent: a broken or hostile server. Nothing is recorded of it, posted into it or deleted.
 */
export class ForeignConversationError extends DsbenchError {
  constructor(message: string) {
    super(message, ExitCode.unreachable);
  }
}

/** The user (or a signal) asked to stop. */
export class AbortedError extends DsbenchError {
  constructor(message = 'aborted') {
    super(message, ExitCode.aborted);
  }
}

/** The results database could not be used: what went wrong, where, and what to do. Exit code 6. */
export class StorageError extends DsbenchError {
  constructor(
    readonly file: string,
    readonly problem: string,
    readonly todo: string,
    options?: { cause?: unknown },
  ) {
    super(`results database ${file}: ${problem}. ${todo}`, ExitCode.storage, options);
  }
}

/** The run is another process's (it holds the lease, or took it over from this one): exit code 7. */
export function isHeldElsewhere(error: unknown): error is RunHeldError | LeaseLostError {
  return error instanceof RunHeldError || error instanceof LeaseLostError;
}

/** A failure of a named step that changes the database (a schema upgrade): the step is kept for the message. */
export class StepError extends Error {
  constructor(
    readonly step: string,
    cause: unknown,
  ) {
    super(`${step} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StepError';
  }
}

/** Another live process runs or resumes this run: refused at once, never waited for. */
export class RunHeldError extends DsbenchError {
  /** The holder, as model/lease.ts's LeaseHolder: this leaf imports nothing. */
  readonly holder: { pid: number; host: string; acquiredAt: string; heartbeatAt: string };

  constructor(runId: number, holder: RunHeldError['holder'], staleMs: number) {
    const ago = Math.max(0, Math.round((Date.now() - Date.parse(holder.heartbeatAt)) / 1000));
    super(
      `run ${runId} is held by another dsbench (pid ${holder.pid} on host ${holder.host}) since ${holder.acquiredAt}, ` +
        `last heartbeat ${ago} s ago. Wait for it to end, or stop it (kill ${holder.pid} on ${holder.host}) and resume again; ` +
        `a lease whose process is gone is taken over at once, one silent for ${Math.round(staleMs / 1000)} s likewise`,
      ExitCode.runHeld,
    );
    this.holder = holder;
  }
}

/**
 * Another process took this run over while this one still held it (its heartbeat had gone silent): this one
 * asks, cancels and records nothing more; the run goes on there.
 */
export class LeaseLostError extends DsbenchError {
  constructor(runId: number, takenBy: string) {
    super(
      `run ${runId} was taken over by another dsbench (${takenBy}) after this one went silent: ` +
        'this process stopped, asking, cancelling and recording nothing more; the run goes on in that process',
      ExitCode.runHeld,
    );
  }
}

/** More than this many problems are counted, not listed: the first ones usually explain the rest. */
export const MAX_LISTED_PROBLEMS = 20;

export interface SuiteProblem {
  /** 1-based; absent when the position could not be worked out. */
  line?: number;
  col?: number;
  /** Field path such as `questions[3].expect.maxCredits`; empty for syntax errors and the whole suite. */
  path: string;
  message: string;
}

function formatProblem(file: string, problem: SuiteProblem): string {
  const where = problem.line === undefined ? file : `${file}:${problem.line}:${problem.col ?? 1}`;
  return `${where}: ${problem.path ? `${problem.path}: ` : ''}${problem.message}`;
}

/** An invalid suite file: every problem found, one per line, each as `file:line:col: path: message`. */
export class SuiteError extends UsageError {
  readonly file: string;
  readonly problems: SuiteProblem[];

  constructor(file: string, problems: SuiteProblem[]) {
    const sorted = [...problems].sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity) || (a.col ?? 0) - (b.col ?? 0));
    const lines = sorted.slice(0, MAX_LISTED_PROBLEMS).map((p) => formatProblem(file, p));
    const more = sorted.length - MAX_LISTED_PROBLEMS;
    if (more > 0) lines.push(`${file}: … and ${more} more problem${more === 1 ? '' : 's'}`);
    super(lines.join('\n'));
    this.file = file;
    this.problems = sorted;
  }
}

export class JudgeError extends DsbenchError {
  constructor(message: string, cause: DsbenchError) {
    super(message, cause.exitCode, { cause });
    this.name = 'JudgeError';
  }
}

/** A search that did not look everywhere: what it found cannot be vouched for. */
export class IncompleteSearchError extends DsbenchError {
  constructor(
    readonly query: string,
    readonly why: string,
  ) {
    super(`the search \`${query}\` did not look everywhere (${why}), so dsbench cannot vouch for what it found`, ExitCode.usage);
  }
}
