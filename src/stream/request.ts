import type { StreamReply, Transport } from '../http/transport.js';
import { toQuery, type SearchParams } from './params.js';

export const STREAM_PATH = '/.api/search/stream';

/**
 * Opens the event stream; resolves once a 2xx status arrived. Non-2xx statuses become an `HttpStatusError`
 * in the transport, before any byte is parsed as an event (auth failures are plain text).
 */
export function openStream(transport: Transport, params: SearchParams, signal: AbortSignal, gzip: boolean, headers: Record<string, string> = {}): Promise<StreamReply> {
  return transport.stream({
    operation: 'stream.search',
    method: 'GET',
    path: STREAM_PATH,
    query: toQuery(params),
    // undici does not decompress: asking for gzip is only safe because `pump` gunzips.
    headers: { ...headers, accept: 'text/event-stream', ...(gzip ? { 'accept-encoding': 'gzip' } : {}) },
    signal,
  });
}

/** How the body must be decoded: `gzip`, `identity`, or an encoding dsbench cannot read (returned as is). */
export function bodyEncoding(headers: Record<string, string>): string {
  const value = (headers['content-encoding'] ?? '').trim().toLowerCase();
  if (value === '' || value === 'identity') return 'identity';
  if (value === 'gzip' || value === 'x-gzip') return 'gzip';
  return value;
}
