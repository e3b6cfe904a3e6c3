import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './http-io.js';
import type { Route, TraceScope } from './routes.js';
import type { ConversationRecord } from './store.js';

// Tracing on request, as the platform does it: a request with `X-Sourcegraph-Should-Trace: true` (or
// `?trace=1`) is answered with X-Trace (the trace id), X-Trace-Span and X-Trace-URL (a path, as a site's
// `observability.tracing.urlTemplate` may give), and its bundled Jaeger serves the trace as JSON at
// `/-/debug/jaeger/api/traces/<id>`. A request that does not ask gets none of it. The trace of a create holds
// the conversation's spans: the request, each question's agent run and each tool call, in emulated time.

export const TRACE_HEADER = 'x-sourcegraph-should-trace';
export const JAEGER_API = '/-/debug/jaeger/api/traces';
const TRACE_URL = '/-/debug/jaeger/trace';

interface RequestSpan {
  spanId: string;
  operation: string;
  startMs: number;
  endMs: number;
}

interface TraceRecord {
  request: RequestSpan;
  conversations: number[];
}

/** Whether a request asks to be traced (the header, any case, `true` or `1`; or `?trace=1`). */
export function wantsTrace(req: IncomingMessage, url: URL): boolean {
  const header = req.headers[TRACE_HEADER];
  const value = (Array.isArray(header) ? header[0] : header)?.trim().toLowerCase();
  return value === 'true' || value === '1' || url.searchParams.get('trace') === '1';
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

export class Tracer {
  private readonly traces = new Map<string, TraceRecord>();
  private next = 1;

  constructor(
    private readonly now: () => number,
    private readonly conversation: (id: number) => ConversationRecord | undefined,
  ) {}

  /** Starts the trace of one request and sets its reply headers; `end` closes its span. */
  begin(res: ServerResponse, operation: string): { scope: TraceScope; end: () => void } {
    const n = this.next++;
    const id = hex(n, 32);
    const request: RequestSpan = { spanId: hex(n, 16), operation, startMs: this.now(), endMs: this.now() };
    const record: TraceRecord = { request, conversations: [] };
    this.traces.set(id, record);
    res.setHeader('X-Trace', id);
    res.setHeader('X-Trace-Span', request.spanId);
    res.setHeader('X-Trace-URL', `${TRACE_URL}/${id}`);
    return {
      scope: { id, conversation: (c) => void record.conversations.push(c) },
      end: () => void (request.endMs = this.now()),
    };
  }

  /**
   * The Jaeger query API's route for a trace (any signed-in user here; site admins on a real instance), and
   * the page X-Trace-URL links to, which here serves the same JSON.
   */
  routes(): Route[] {
    return [JAEGER_API, TRACE_URL].map((base) => ({
      method: 'GET',
      path: `${base}/:id`,
      operation: 'jaeger.trace',
      scope: 'read',
      handler: (_req, res, ctx) => {
        const body = this.jaeger(ctx.params.id ?? '');
        if (!body) sendJson(res, 404, { data: null, errors: [{ code: 404, msg: 'trace not found' }] });
        else sendJson(res, 200, body);
      },
    }));
  }

  /** Jaeger's JSON shape: `{data: [{traceID, spans, processes}]}`, times in microseconds. */
  jaeger(id: string): unknown {
    const record = this.traces.get(id);
    if (!record) return undefined;
    const spans: unknown[] = [];
    let n = 0;
    const span = (operationName: string, startMs: number, durationMs: number, parent: string | undefined, tags: Record<string, string | number> = {}): string => {
      const spanID = parent === undefined ? record.request.spanId : `${record.request.spanId.slice(0, 8)}${hex(++n, 8)}`;
      spans.push({
        traceID: id,
        spanID,
        operationName,
        references: parent === undefined ? [] : [{ refType: 'CHILD_OF', traceID: id, spanID: parent }],
        startTime: Math.round(startMs * 1000),
        duration: Math.round(Math.max(0, durationMs) * 1000),
        tags: Object.entries(tags).map(([key, value]) => ({ key, type: typeof value === 'number' ? 'int64' : 'string', value })),
        logs: [],
        processID: 'p1',
        warnings: null,
      });
      return spanID;
    };
    const root = span(record.request.operation, record.request.startMs, record.request.endMs - record.request.startMs, undefined);
    for (const c of record.conversations.map(this.conversation)) if (c) conversationSpans(c, root, span);
    return { data: [{ traceID: id, spans, processes: { p1: { serviceName: 'deepsearch', tags: [] } }, warnings: null }], total: 0, limit: 0, offset: 0, errors: null };
  }
}

type SpanWriter = (name: string, startMs: number, durationMs: number, parent: string, tags?: Record<string, string | number>) => string;

/** Each question's agent run, its tool calls spread over the run, then the model writing the answer. */
function conversationSpans(c: ConversationRecord, parent: string, span: SpanWriter): void {
  for (const q of c.questions) {
    const outcome = q.end?.outcome ?? q.ready;
    const step = span('deepsearch.agent', q.createdAtMs, q.processingMs, parent, { 'conversation.id': c.id, 'question.index': q.index, outcome: outcome?.kind ?? 'processing' });
    const calls = outcome?.usage.toolCalls ?? 0;
    // Tool calls take the first four fifths of the run, one after another; the answer the rest.
    const each = calls === 0 ? 0 : (q.processingMs * 0.8) / calls;
    for (let i = 0; i < calls; i++) span('tool.search', q.createdAtMs + i * each, each, step, { 'tool.index': i });
    span('model.answer', q.createdAtMs + calls * each, q.processingMs - calls * each, step);
  }
}
