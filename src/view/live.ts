import type { ServerResponse } from 'node:http';
import type Database from 'better-sqlite3';
import { runProgress } from '../store/view-queries.js';

// Live pages: one timer per viewer asks SQLite whether another connection committed since it last looked
// (`PRAGMA data_version`, a read of a counter, no query of the data) and tells every open page by
// server-sent events; a page then fetches its own content again. A page of a run also gets the run's counts.

const CHECK_MS = 200;
/** A comment line now and then keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;

interface Listener {
  res: ServerResponse;
  runId: number | undefined;
}

export class LiveUpdates {
  private readonly listeners = new Set<Listener>();
  private version: number;
  private readonly timer: NodeJS.Timeout;
  private readonly keepalive: NodeJS.Timeout;

  constructor(
    private readonly db: Database.Database,
    /** Called when the data changed, before listeners hear of it (the viewer drops what it cached). */
    private readonly onChange: () => void,
  ) {
    this.version = this.dataVersion();
    this.timer = setInterval(() => this.check(), CHECK_MS);
    this.keepalive = setInterval(() => this.each((l) => l.res.write(': keepalive\n\n')), KEEPALIVE_MS);
    this.timer.unref();
    this.keepalive.unref();
  }

  /** Holds `res` open as an event stream until the page goes away. */
  subscribe(res: ServerResponse, runId: number | undefined): void {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    const listener = { res, runId };
    this.listeners.add(listener);
    res.on('close', () => this.listeners.delete(listener));
    res.write('retry: 1000\n\n');
    // Read now, not at the last check: a page compares it with the version it was made at.
    this.send(listener, 'hello', this.dataVersion());
  }

  close(): void {
    clearInterval(this.timer);
    clearInterval(this.keepalive);
    this.each((l) => l.res.end());
    this.listeners.clear();
  }

  /** The database's version as this connection sees it now: a page made after reading it shows at least this. */
  current(): number {
    return this.dataVersion();
  }

  private dataVersion(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }

  private check(): void {
    const version = this.dataVersion();
    if (version === this.version) return;
    this.version = version;
    this.onChange();
    this.each((l) => this.send(l, 'change'));
  }

  private send(listener: Listener, event: string, version = this.version): void {
    const progress = listener.runId === undefined ? undefined : runProgress(this.db, listener.runId);
    listener.res.write(`event: ${event}\ndata: ${JSON.stringify({ version, progress: progress ?? null })}\n\n`);
  }

  private each(fn: (l: Listener) => void): void {
    for (const l of this.listeners) fn(l);
  }
}
