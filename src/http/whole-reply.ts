// A request whose whole reply is read into memory, given to undici's dispatcher with a handler of its own.
// undici's request API makes, for every request, an async resource, a response stream with its events, an
// abort listener on the caller's signal and a parsed copy of the headers; a run sends two requests per
// question and reads every reply whole, so those were a tenth of its CPU. Streams still use that API.
import type { Dispatcher } from 'undici';
import { headerNameToString } from './undici.js';

export interface WholeReply {
  status: number;
  /** Names in lower case; a repeated header's values joined with `, `. */
  headers: Record<string, string>;
  /**
   * The body. A 2xx body larger than its cap is dropped (undefined) and its connection closed; any other
   * status's body is read only to its cap (an error reply is only quoted) and the connection then closed.
   */
  text: string | undefined;
}

export interface WholeReplyCaps {
  /** Largest 2xx body read (bytes). */
  ok: number;
  /** Bytes read of any other status's body. */
  error: number;
}

/**
 * One request: `send` dispatches it once; `abort(reason)` (its timeout, the caller's signal) fails it with
 * that reason, also before it is sent or connected.
 */
export class WholeReplyRequest {
  private stop: ((error: Error) => void) | undefined;
  private reason: unknown;
  private settled = false;
  private resolve!: (reply: WholeReply) => void;
  private reject!: (error: unknown) => void;
  private status = 0;
  private headers: Record<string, string> | undefined;
  private cap = 0;
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly caps: WholeReplyCaps) {}

  send(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions): Promise<WholeReply> {
    return new Promise<WholeReply>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      if (this.reason !== undefined) this.fail(this.reason);
      else dispatcher.dispatch(options, this);
    });
  }

  abort(reason: unknown): void {
    if (this.settled || this.reason !== undefined) return;
    this.reason = reason;
    // Not connected yet: undici calls onConnect once it is, and it stops there.
    this.stop?.(reason as Error);
  }

  onConnect(abort: (error: Error) => void): void {
    if (this.reason !== undefined) abort(this.reason as Error);
    else this.stop = abort;
  }

  onHeaders(status: number, rawHeaders: Buffer[], _resume: () => void, _statusText: string): boolean {
    // 1xx: informational, the reply's own head follows.
    if (status < 200) return true;
    this.status = status;
    const headers: Record<string, string> = {};
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = headerNameToString(rawHeaders[i] as Buffer);
      const value = (rawHeaders[i + 1] as Buffer).toString('latin1');
      const earlier = Object.hasOwn(headers, name) ? headers[name] : undefined;
      if (name !== '__proto__') headers[name] = earlier === undefined ? value : `${earlier}, ${value}`;
    }
    this.headers = headers;
    const ok = status < 300;
    this.cap = ok ? this.caps.ok : this.caps.error;
    if (ok && Number(headers['content-length']) > this.cap) this.end(undefined, true);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.settled) return false;
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size > this.cap) this.end(this.status < 300 ? undefined : this.body().subarray(0, this.cap).toString('utf8'), true);
    return true;
  }

  onComplete(): void {
    if (!this.settled) this.end(this.body().toString('utf8'), false);
  }

  onError(error: Error): void {
    this.fail(error);
  }

  /** Settles with what was read; `drop`: the rest of the body is not read, and its connection is closed. */
  private end(text: string | undefined, drop: boolean): void {
    this.settled = true;
    this.chunks = [];
    this.resolve({ status: this.status, headers: this.headers ?? {}, text });
    if (drop) this.stop?.(new Error('reply body over its cap: not read further'));
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.chunks = [];
    this.reject(error);
  }

  private body(): Buffer {
    return this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.size);
  }
}
