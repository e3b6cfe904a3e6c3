import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { FaultRatesSchema, type FaultRates } from './options.js';
import { InjectFaultSchema, type FaultPlanner } from './faults.js';
import { readJsonBody, RequestError, sendJson, sendText } from './http-io.js';
import type { LlmApiState } from './llm-api.js';
import type { RequestLog } from './request-log.js';
import { STREAM_FAULT_KINDS, type StreamFaultInjector } from './stream/index.js';
import { StreamFaultOptionsSchema } from './stream/faults.js';

/** Off the API paths: no platform route starts so. */
export const ADMIN_PREFIX = '/-/emulator/';

export interface AdminDeps {
  token: string;
  counters: () => Record<string, number>;
  faultCounters: () => Record<string, number>;
  log: RequestLog;
  faults: FaultPlanner;
  streamFaults: StreamFaultInjector;
  /** Moves the server's clock when its offset setting changes. */
  shiftClock: (deltaMs: number) => void;
  /** The LLM API's switch: gated answers 404. */
  llm: LlmApiState;
}

/** Partial settings: what is given replaces the current value, the rest stays. */
const FaultsPatchSchema = z.strictObject({
  http: z.record(z.string(), z.unknown()).optional(),
  stream: z.strictObject({ rates: z.record(z.string(), z.unknown()).optional(), stallMs: z.unknown().optional() }).optional(),
});

const EnqueueSchema = z.strictObject({ kinds: z.array(z.enum(STREAM_FAULT_KINDS)).min(1) });

const LlmPatchSchema = z.strictObject({ gated: z.boolean() });

const LogQuerySchema = z.object({ limit: z.coerce.number().int().positive().optional() });

/**
 * The admin interface of a standalone emulator: counters, the request log and every fault switch,
 * only with the admin token. Returns false for paths that are not its own.
 */
export function createAdminHandler(deps: AdminDeps): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  const expected = digest(deps.token);
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    if (!url.pathname.startsWith(ADMIN_PREFIX)) return false;
    const presented = /^(?:bearer|token)\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
      sendText(res, 401, 'The admin interface needs the admin token (Authorization: Bearer <token>).\n');
      return true;
    }
    try {
      const reply = await route(deps, req.method ?? 'GET', url.pathname.slice(ADMIN_PREFIX.length), url, req);
      sendJson(res, 200, reply);
    } catch (error) {
      if (!(error instanceof RequestError)) throw error;
      sendJson(res, error.status, { message: error.message });
    }
    return true;
  };
}

async function route(deps: AdminDeps, method: string, name: string, url: URL, req: IncomingMessage): Promise<unknown> {
  const key = `${method} ${name}`;
  switch (key) {
    case 'GET counters':
      return { requests: deps.counters(), faults: deps.faultCounters() };
    case 'GET log':
      return { requests: deps.log.recent(parse(LogQuerySchema, Object.fromEntries(url.searchParams)).limit) };
    case 'GET faults':
      return settings(deps);
    case 'PATCH faults':
    case 'POST faults':
      return update(deps, parse(FaultsPatchSchema, await readJsonBody(req)));
    case 'POST faults/inject':
      deps.faults.inject(parse(InjectFaultSchema, await readJsonBody(req)));
      return settings(deps);
    case 'POST stream-faults/enqueue':
      deps.streamFaults.enqueue(...parse(EnqueueSchema, await readJsonBody(req)).kinds);
      return settings(deps);
    case 'GET llm':
      return { ...deps.llm };
    case 'PATCH llm':
    case 'POST llm':
      deps.llm.gated = parse(LlmPatchSchema, await readJsonBody(req)).gated;
      return { ...deps.llm };
    default:
      throw new RequestError(404, `no admin operation ${key}: GET counters, GET log?limit=N, GET faults, PATCH faults, POST faults/inject, POST stream-faults/enqueue, GET llm, PATCH llm`);
  }
}

function settings(deps: AdminDeps): { http: FaultRates; stream: ReturnType<StreamFaultInjector['current']> } {
  return { http: deps.faults.current(), stream: deps.streamFaults.current() };
}

/** Validates the merged settings as a whole (rates must still sum to at most 1) before applying any. */
function update(deps: AdminDeps, patch: z.output<typeof FaultsPatchSchema>): unknown {
  const now = settings(deps);
  const unknown = [
    ...Object.keys(patch.http ?? {}).filter((k) => !(k in now.http)).map((k) => `http.${k}`),
    ...Object.keys(patch.stream?.rates ?? {}).filter((k) => !(k in now.stream.rates)).map((k) => `stream.rates.${k}`),
  ];
  if (unknown.length > 0) {
    throw new RequestError(400, `unknown fault setting ${unknown.join(', ')}; GET faults lists them`);
  }
  const http = parse(FaultRatesSchema, { ...now.http, ...patch.http });
  const stream = parse(StreamFaultOptionsSchema, {
    rates: { ...now.stream.rates, ...patch.stream?.rates },
    stallMs: patch.stream?.stallMs ?? now.stream.stallMs,
  });
  deps.shiftClock(http.clockOffsetMs - now.http.clockOffsetMs);
  deps.faults.setRates(http);
  deps.streamFaults.configure(stream);
  return settings(deps);
}

function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new RequestError(400, `${issue.path.join('.') || 'body'}: ${issue.message}`);
}

/** Fixed-length digests so the comparison takes the same time whatever was presented. */
function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
