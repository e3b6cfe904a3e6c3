import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import zlib from 'node:zlib';

/** One event, framed exactly as the platform does: two lines and a blank line. */
export function frame(name: string, json: string): string {
  return `event: ${name}\ndata: ${json}\n\n`;
}

/**
 * The event stream of one response. Writes are serialized and each one is pushed to the network at once
 * (a gzip sync flush per write) and waits for the socket to drain, so a slow client slows the search.
 * Once the client is gone every operation resolves immediately.
 */
export class EventSink {
  private chain: Promise<void> = Promise.resolve();
  private pending = 0;
  private cutDone = false;
  private readonly gzip?: zlib.Gzip;
  private readonly gone: Promise<void>;
  private readonly closing = new AbortController();
  /** Aborted when the response closes: finished, cut, or the client went away. */
  readonly signal = this.closing.signal;

  constructor(private readonly res: ServerResponse, gzip: boolean) {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      'X-Accel-Buffering': 'no',
      ...(gzip && { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' }),
    });
    res.flushHeaders();
    this.gone = new Promise((resolve) => res.once('close', resolve));
    res.once('close', () => this.closing.abort());
    // A write racing a disconnect must not become an uncaught error; the search stops on 'close'.
    res.on('error', () => res.destroy());
    if (gzip) {
      this.gzip = zlib.createGzip();
      this.gzip.on('data', (chunk: Buffer) => this.closed || res.write(chunk));
      this.gzip.on('error', (err) => res.destroy(err));
    }
  }

  get closed(): boolean {
    return this.cutDone || this.res.destroyed || this.res.writableEnded;
  }

  /** True while writes are queued: callers that need not wait (timers) skip their turn. */
  get busy(): boolean {
    return this.pending > 0;
  }

  write(text: string): Promise<void> {
    return this.enqueue(() => this.send(text));
  }

  /** Writes nothing for a while, keeping the connection open. */
  stall(ms: number): Promise<void> {
    return this.enqueue(() => Promise.race([sleep(ms), this.gone]));
  }

  /** Closes the connection after what was written so far, leaving the chunked body unterminated. */
  cut(): Promise<void> {
    return this.enqueue(async () => {
      this.cutDone = true;
      this.res.socket?.destroySoon();
    });
  }

  end(): Promise<void> {
    return this.enqueue(async () => {
      const gzip = this.gzip;
      if (gzip) await new Promise((resolve) => gzip.once('end', resolve).end());
      await new Promise<void>((resolve) => this.res.end(resolve));
    });
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.pending++;
    this.chain = this.chain
      .then(() => (this.closed ? undefined : step()))
      .finally(() => this.pending--);
    return this.chain;
  }

  private async send(text: string): Promise<void> {
    if (this.gzip) {
      this.gzip.write(text);
      await new Promise<void>((resolve) => this.gzip!.flush(zlib.constants.Z_SYNC_FLUSH, () => resolve()));
    } else {
      this.res.write(text);
    }
    if (this.res.writableNeedDrain && !this.closed) {
      await Promise.race([new Promise((resolve) => this.res.once('drain', resolve)), this.gone]);
    }
  }
}
