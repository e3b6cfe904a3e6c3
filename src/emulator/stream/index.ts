import type { IncomingMessage, ServerResponse } from 'node:http';
import { QuerySyntaxError } from '../corpus/errors.js';
import { parseQuery, type Query } from '../corpus/query.js';
import { StreamHandlerOptionsSchema, type ResolvedStreamOptions, type StreamDeps, type StreamHandlerOptions } from './options.js';
import { ParamError, parseParams, type StreamParams } from './params.js';
import { StreamSession } from './session.js';
import { EventSink, frame } from './sink.js';

export { StreamFaultInjector, STREAM_FAULT_KINDS, type StreamFaultKind, type StreamFaultOptions } from './faults.js';
export type { StreamDeps, StreamHandlerOptions } from './options.js';

/**
 * The handler of `GET /.api/search/stream`. Authentication happens before it is called. Bad parameters
 * give an `error` event, an unparsable query an `alert` event, each followed by `done`.
 */
export function createStreamHandler(deps: StreamDeps, options: StreamHandlerOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const resolved = StreamHandlerOptionsSchema.parse(options);
  return (req, res) => {
    serve(req, res, deps, resolved).catch((err: unknown) => res.destroy(err instanceof Error ? err : undefined));
  };
}

async function serve(req: IncomingMessage, res: ServerResponse, deps: StreamDeps, options: ResolvedStreamOptions): Promise<void> {
  if (req.method !== 'GET') return plain(res, 405, 'Method not allowed.\n', { Allow: 'GET' });
  const fault = deps.faults?.next();
  if (fault === 'status401') return plain(res, 401, 'Invalid access token.\n');
  if (fault === 'status500') return plain(res, 500, 'Internal server error.\n');
  const sink = new EventSink(res, /\bgzip\b/i.test(req.headers['accept-encoding'] ?? ''));
  let params: StreamParams;
  let query: Query;
  try {
    params = parseParams(new URL(req.url ?? '/', 'http://localhost').searchParams);
    query = parseQuery(params.query, params.patternType);
  } catch (err) {
    await sink.write(rejection(err) + frame('done', '{}'));
    await sink.end();
    return;
  }
  await new StreamSession(sink, deps, options, params, query, fault).run();
}

function rejection(err: unknown): string {
  if (err instanceof ParamError) return frame('error', JSON.stringify({ message: err.message }));
  if (err instanceof QuerySyntaxError) {
    return frame('alert', JSON.stringify({ title: 'Unable To Process Query', description: err.message, proposedQueries: null }));
  }
  throw err;
}

function plain(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
  res.end(body);
}
