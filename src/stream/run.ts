import { MAX_TIMER_MS } from '../config/duration.js';
import { EMULATOR_HEADER } from '../emulator-identity.js';
import { z } from 'zod';
import { AbortedError, DsbenchError, HttpStatusError, UsageError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import { redact } from '../redact.js';
import type { StreamReply, Transport } from '../http/transport.js';
import { traceOf } from '../http/trace-headers.js';
import { EventConsumer } from './consume.js';
import { EventDecoder, MAX_EVENT_BYTES } from './decoder.js';
import { DEFAULT_MAX_DISTINCT } from './distinct.js';
import { parseSearchParams, type SearchParamsInput } from './params.js';
import { discard, pump, type PumpEnd } from './pump.js';
import { bodyEncoding, openStream } from './request.js';
import type { SearchResult } from './result.js';
import { Tally } from './tally.js';

export const SearchOptionsSchema = z
  .object({
    /** No body byte for this long stops the search (verdict `truncated`). Servers send progress at least every 5 s. */
    stallTimeoutMs: z.number().positive().max(MAX_TIMER_MS).default(30_000),
    /** The whole exchange, from sending the request. */
    timeoutMs: z.number().positive().max(MAX_TIMER_MS).default(600_000),
    /** Cancels the search; the result then has failure kind `aborted` (exit code 4). */
    signal: z.instanceof(AbortSignal).optional(),
    /** Headers of the request (the one that asks the instance to trace it). */
    headers: z.record(z.string(), z.string()).optional(),
    /** Ask for a gzip body (the platform compresses when asked). */
    gzip: z.boolean().default(true),
    /** Cap of the distinct repository and file counts (see DistinctCounter). */
    maxDistinct: z.number().int().positive().default(DEFAULT_MAX_DISTINCT),
    /**
     * Receives the match objects of each valid `matches` event, parsed, for a caller that needs them (a
     * suite generator); the tally still counts without keeping them.
     */
    onMatches: z.custom<(matches: unknown[]) => void>((v) => typeof v === 'function', 'onMatches must be a function').optional(),
  })
  .strict();
export type SearchOptions = z.input<typeof SearchOptionsSchema>;
type Options = z.output<typeof SearchOptionsSchema>;

/** After `done`, how long the body may take to end by itself (so its connection can be reused). */
const DONE_GRACE_MS = 1000;

// Reasons given to the stop signal.
const TIMEOUT = 'timeout';
const ABORTED = 'aborted';
/** The failure message of a search stopped by its caller's signal (a run interrupted): a resume runs it again. */
export const SEARCH_ABORTED_MESSAGE = 'the search was aborted';
const TOO_LARGE = 'too_large';
const AFTER_DONE = 'after_done';

/**
 * Runs one streaming search and tallies it. Throws for usage errors only (invalid params or options:
 * `UsageError`), and for dsbench's own bugs; every other way of failing (non-2xx status, no connection,
 * a stall, a cut, a timeout, an abort, malformed events) returns the tally as far as it got, with the
 * verdict, `errors` and `failure` (whose `exitCode` is the one the CLI should end with).
 */
export async function runSearch(transport: Transport, params: SearchParamsInput, options: SearchOptions = {}): Promise<SearchResult> {
  const search = parseSearchParams(params);
  const opts = parseOptions(options);
  const tally = new Tally({ maxDistinct: opts.maxDistinct });
  const stop = new AbortController();
  const overall = setTimeout(() => stop.abort(TIMEOUT), opts.timeoutMs);
  const onAbort = (): void => stop.abort(ABORTED);
  if (opts.signal?.aborted) onAbort();
  else opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    let reply: StreamReply;
    try {
      reply = await openStream(transport, search, stop.signal, opts.gzip, opts.headers);
    } catch (error) {
      recordRequestFailure(tally, error, stop.signal.reason, opts);
      return finish(tally);
    }
    tally.sent(reply.sentAt);
    tally.httpStatus = reply.status;
    tally.contentEncoding = reply.headers['content-encoding'];
    if (reply.headers[EMULATOR_HEADER] !== undefined) tally.servedByEmulator = true;
    tally.requestTrace = traceOf(reply.headers, transport.endpoint);
    const encoding = bodyEncoding(reply.headers);
    if (encoding !== 'identity' && encoding !== 'gzip') {
      discard(reply.body);
      tally.fail({ kind: 'body', message: `the reply body is encoded as "${encoding}", which dsbench cannot decode`, exitCode: ExitCode.unreachable });
      return finish(tally);
    }
    const end = await readEvents(reply, encoding === 'gzip', tally, stop, opts);
    if (end.kind === 'consumer_error') throw end.error;
    if (!tally.done) recordEnd(tally, end, reply, opts);
    return finish(tally);
  } finally {
    clearTimeout(overall);
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

function parseOptions(options: SearchOptions): Options {
  const parsed = SearchOptionsSchema.safeParse(options);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'options'}: ${i.message}`).join('; ');
  throw new UsageError(`invalid search options: ${problems}`);
}

async function readEvents(reply: StreamReply, gzip: boolean, tally: Tally, stop: AbortController, opts: Options): Promise<PumpEnd> {
  const consumer = new EventConsumer(tally, opts.onMatches);
  const decoder = new EventDecoder((name, data) => consumer.event(name, data));
  let grace: NodeJS.Timeout | undefined;
  try {
    return await pump(reply.body, {
      gzip,
      stallMs: opts.stallTimeoutMs,
      signal: stop.signal,
      onRaw: (bytes) => {
        tally.bytes += bytes;
      },
      onData: (chunk) => {
        tally.decodedBytes += chunk.length;
        if (!decoder.feed(chunk)) stop.abort(TOO_LARGE);
        else if (tally.done && grace === undefined) grace = setTimeout(() => stop.abort(AFTER_DONE), DONE_GRACE_MS);
      },
    });
  } finally {
    clearTimeout(grace);
  }
}

function recordRequestFailure(tally: Tally, error: unknown, stopReason: unknown, opts: Options): void {
  if (error instanceof AbortedError) {
    recordStop(tally, stopReason, opts);
    return;
  }
  if (!(error instanceof DsbenchError)) throw error;
  if (error instanceof HttpStatusError) {
    tally.httpStatus = error.status;
    tally.fail({ kind: 'http_status', message: error.message, exitCode: error.exitCode }, true);
  } else {
    tally.fail({ kind: 'connection', message: error.message, exitCode: error.exitCode }, true);
  }
}

/** Records why a stream without `done` ended. */
function recordEnd(tally: Tally, end: PumpEnd, reply: StreamReply, opts: Options): void {
  switch (end.kind) {
    case 'end': {
      const type = reply.headers['content-type'] ?? '';
      const hint = tally.eventCount === 0 && !type.includes('text/event-stream') ? ` (content-type "${type}": not an event stream)` : '';
      tally.fail({ kind: 'ended_early', message: `the stream ended before the done event${hint}`, exitCode: ExitCode.unreachable });
      return;
    }
    case 'stall':
      tally.fail({
        kind: 'stall',
        message: `stall timeout: no data for ${opts.stallTimeoutMs} ms, the stream stopped before the done event`,
        exitCode: ExitCode.unreachable,
      });
      return;
    case 'stopped':
      recordStop(tally, end.reason, opts);
      return;
    case 'error':
      tally.fail({
        kind: 'body',
        message: end.inGzip
          ? `the gzip body could not be decoded: ${redact(end.error.message)}`
          : `the connection broke during the stream: ${redact(end.error.message)}`,
        exitCode: ExitCode.unreachable,
      });
  }
}

function recordStop(tally: Tally, reason: unknown, opts: Options): void {
  if (reason === TIMEOUT) {
    tally.fail({ kind: 'timeout', message: `overall timeout: no done event within ${opts.timeoutMs} ms`, exitCode: ExitCode.unreachable });
  } else if (reason === TOO_LARGE) {
    const message = `an event exceeded ${MAX_EVENT_BYTES / (1024 * 1024)} MB; the rest of the stream cannot be decoded`;
    tally.error(message);
    tally.fail({ kind: 'event_too_large', message, exitCode: ExitCode.unreachable });
  } else {
    tally.fail({ kind: 'aborted', message: SEARCH_ABORTED_MESSAGE, exitCode: ExitCode.aborted });
  }
}

function finish(tally: Tally): SearchResult {
  tally.end();
  return tally.result();
}
