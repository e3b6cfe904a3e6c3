import type { IncomingMessage, ServerResponse } from 'node:http';

/** One request as the admin interface and `--log` show it: never a header, a body or a query string. */
export interface RequestLogEntry {
  /** Real time the request arrived (ISO 8601). */
  at: string;
  method: string;
  /** The path without its query string, which may carry a read token. */
  path: string;
  operation: string;
  /** The status sent, or 0 when the connection closed without a complete reply (a reset, a cut stream). */
  status: number;
  /** Real milliseconds until the reply ended or the connection closed. */
  latencyMs: number;
}

/** The last `capacity` requests, oldest first. */
export class RequestLog {
  private readonly entries: RequestLogEntry[] = [];

  constructor(
    private readonly capacity: number,
    private readonly onEntry?: (entry: RequestLogEntry) => void,
  ) {}

  /** Records the request once its reply ended or its connection closed. */
  track(req: IncomingMessage, res: ServerResponse, operation: string): void {
    const started = performance.now();
    const at = new Date().toISOString();
    const path = (req.url ?? '/').split('?')[0]!;
    res.once('close', () => {
      const entry = {
        at,
        method: req.method ?? 'GET',
        path,
        operation,
        status: res.writableFinished ? res.statusCode : 0,
        latencyMs: Math.round((performance.now() - started) * 10) / 10,
      };
      this.entries.push(entry);
      if (this.entries.length > this.capacity) this.entries.shift();
      this.onEntry?.(entry);
    });
  }

  /** The newest `limit` entries, oldest first. */
  recent(limit = this.capacity): RequestLogEntry[] {
    return this.entries.slice(-limit);
  }
}

/** One line per request on stderr with `--log`. */
export function formatLogEntry(e: RequestLogEntry): string {
  return `${e.at} ${e.method} ${e.path} ${e.status === 0 ? 'closed' : e.status} ${e.latencyMs} ms ${e.operation}`;
}
