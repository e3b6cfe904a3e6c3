import type { TraceRef } from '../model/conversation.js';

// The instance's trace of a request, read from its reply: `X-Trace` (the id) and `X-Trace-URL` (built from
// the site's urlTemplate, often a path). None when the instance did not trace it: never an error.

/** The header that asks the instance to trace a request (its tracing docs; `?trace=1` is the other way). */
export const SHOULD_TRACE_HEADER = 'X-Sourcegraph-Should-Trace';

/**
 * The trace a reply names, its URL made absolute against the endpoint. The URL keeps no user or password (an
 * endpoint written with credentials must not lend them to a link); a URL that is not
 * one is left out, with a note, and the id kept.
 */
export function traceOf(headers: Record<string, string>, endpoint: string): TraceRef | undefined {
  const id = headers['x-trace']?.trim();
  if (!id) return undefined;
  const given = headers['x-trace-url']?.trim();
  if (!given) return { id };
  let url: URL;
  try {
    url = new URL(given, `${endpoint.replace(/\/+$/, '')}/`);
  } catch {
    return { id, note: 'X-Trace-URL was not a URL; kept the trace id only' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { id, note: `X-Trace-URL had the scheme ${url.protocol}; kept the trace id only` };
  url.username = '';
  url.password = '';
  return { id, url: url.toString() };
}
