import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { z } from 'zod';
import { HttpStatusError } from '../errors/errors.js';
import type { Transport } from '../http/transport.js';
import { redact } from '../redact.js';
import { outputDir } from './open.js';

// `run --trace-fetch`: each kept trace's JSON from the instance's bundled Jaeger, gzipped into the run's
// trace folder beside the database, under one size cap for all of them; an index says what was saved, what
// was cut and why fetching stopped, and the slowest spans of each trace (report.html lists them).

export const JAEGER_TRACES_PATH = '/-/debug/jaeger/api/traces';
export const DEFAULT_TRACE_MAX_BYTES = 100 * 1024 * 1024;
const INDEX = 'index.json';
/** Spans of a trace the report lists, slowest first. */
const SLOWEST_SPANS = 5;
/** A trace id names a file: only ids of this shape are fetched (server text is untrusted). */
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

const SpanSchema = z.object({ operationName: z.string(), duration: z.number() }).passthrough();
const JaegerSchema = z.object({ data: z.array(z.object({ spans: z.array(SpanSchema) }).passthrough()) }).passthrough();

const FetchedTraceSchema = z.object({
  id: z.string(),
  itemKey: z.string(),
  file: z.string(),
  /** Bytes of JSON saved (before gzip). */
  bytes: z.number(),
  /** The body went past the size cap: what was saved is its beginning (not valid JSON). */
  cut: z.boolean(),
  slowest: z.array(z.object({ operation: z.string(), ms: z.number() })),
});
export const FetchedTracesSchema = z.object({
  runId: z.number(),
  dir: z.string(),
  saved: z.number(),
  /** Why fetching stopped before the last trace (a refused or missing trace, a failure, the size cap). */
  stopped: z.string().optional(),
  /** Traces not fetched: their ids could not name a file. */
  skipped: z.array(z.string()),
  traces: z.array(FetchedTraceSchema),
});
export type FetchedTraces = z.infer<typeof FetchedTracesSchema> & { file?: string };

export interface TraceFetchOptions {
  runId: number;
  dir: string;
  /** The traces to fetch (their ids and items), in order. */
  traces: ReadonlyArray<{ id: string; itemKey: string }>;
  maxBytes: number;
  /** Deadline of each request, its body included (ms). */
  timeoutMs: number;
  stop?: AbortSignal;
}

/** Where a run's fetched traces go: `traces-<run id>` beside the database. */
export function traceArchiveDir(db: string, runId: number): string {
  return outputDir(db, `traces-${runId}`);
}

/**
 * Fetches each trace once, in order. A 401, 403 or 404 (the Jaeger API is for site admins; a trace ages
 * out), or any other failure, is recorded and stops further fetches; it never throws. The index is written
 * even when nothing was saved.
 */
export async function fetchTraces(transport: Transport, o: TraceFetchOptions): Promise<FetchedTraces> {
  mkdirSync(o.dir, { recursive: true });
  const result: FetchedTraces = { runId: o.runId, dir: o.dir, saved: 0, skipped: [], traces: [] };
  let left = o.maxBytes;
  for (const t of o.traces) {
    if (o.stop?.aborted) {
      result.stopped = 'the run was interrupted';
      break;
    }
    if (!SAFE_ID.test(t.id)) {
      result.skipped.push(t.id.slice(0, 200));
      continue;
    }
    if (left <= 0) {
      result.stopped = `the size cap (${o.maxBytes} bytes) was reached`;
      break;
    }
    let body: { bytes: Buffer; cut: boolean };
    try {
      body = await fetchOne(transport, t.id, left, o.timeoutMs, o.stop);
    } catch (error) {
      result.stopped = stopReason(t.id, error);
      break;
    }
    const file = `${t.id}.json.gz`;
    writeFileSync(path.join(o.dir, file), gzipSync(body.bytes));
    left -= body.bytes.length;
    result.traces.push({ id: t.id, itemKey: t.itemKey, file, bytes: body.bytes.length, cut: body.cut, slowest: body.cut ? [] : slowestSpans(body.bytes) });
    result.saved++;
    if (body.cut) {
      result.stopped = `trace ${t.id} was cut at the size cap (${o.maxBytes} bytes in all)`;
      break;
    }
  }
  writeFileSync(path.join(o.dir, INDEX), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

/** The index of a run's fetched traces; undefined when none were fetched (or the index is unreadable). */
export function readFetchedTraces(dir: string): FetchedTraces | undefined {
  const file = path.join(dir, INDEX);
  if (!existsSync(file)) return undefined;
  try {
    const parsed = FetchedTracesSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? { ...parsed.data, file } : undefined;
  } catch {
    return undefined;
  }
}

async function fetchOne(transport: Transport, id: string, cap: number, timeoutMs: number, stop: AbortSignal | undefined): Promise<{ bytes: Buffer; cut: boolean }> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = stop ? AbortSignal.any([deadline, stop]) : deadline;
  const reply = await transport.stream({ operation: 'jaeger.trace', method: 'GET', path: `${JAEGER_TRACES_PATH}/${id}`, signal, timeoutMs });
  const chunks: Buffer[] = [];
  let size = 0;
  const body = reply.body;
  const abort = () => body.destroy(new Error(`no whole trace within ${timeoutMs} ms`));
  signal.addEventListener('abort', abort, { once: true });
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      const room = cap - size;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.length, room);
      if (chunk.length >= room && size >= cap) {
        body.destroy();
        return { bytes: Buffer.concat(chunks), cut: true };
      }
    }
  } finally {
    signal.removeEventListener('abort', abort);
  }
  return { bytes: Buffer.concat(chunks), cut: false };
}

function stopReason(id: string, error: unknown): string {
  if (error instanceof HttpStatusError) {
    const why = error.status === 404 ? 'not found (traces age out of the instance)' : error.status === 401 || error.status === 403 ? 'refused (the Jaeger API is for site admins)' : 'failed';
    return `trace ${id}: HTTP ${error.status}, ${why}; no further trace was fetched`;
  }
  return `trace ${id}: ${redact(error instanceof Error ? error.message : String(error))}; no further trace was fetched`;
}

/** The trace's slowest spans (Jaeger's microseconds as ms); none when the body is not Jaeger's JSON. */
function slowestSpans(bytes: Buffer): Array<{ operation: string; ms: number }> {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    return [];
  }
  const parsed = JaegerSchema.safeParse(json);
  if (!parsed.success) return [];
  const spans = parsed.data.data.flatMap((t) => t.spans);
  return spans
    .sort((a, b) => b.duration - a.duration)
    .slice(0, SLOWEST_SPANS)
    .map((s) => ({ operation: s.operationName.slice(0, 200), ms: Math.round(s.duration / 100) / 10 }));
}
