import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** Why reading stopped. `stopped` carries the reason given to the stop signal. */
export type PumpEnd =
  | { kind: 'end' }
  | { kind: 'stall' }
  | { kind: 'stopped'; reason: unknown }
  | { kind: 'error'; error: Error; inGzip: boolean }
  /** `onData` threw: a bug, not a stream fault; the caller rethrows it. */
  | { kind: 'consumer_error'; error: unknown };

export interface PumpOptions {
  gzip: boolean;
  /** No body byte for this long ends reading. */
  stallMs: number;
  /** Aborting it ends reading with `stopped` and its reason. */
  signal: AbortSignal;
  /** Each body chunk as received (before gunzip). */
  onRaw: (bytes: number) => void;
  /** Each decoded chunk. */
  onData: (chunk: Buffer) => void;
}

/**
 * Reads a reply body to its end, gunzipping when asked, until the body ends, stalls, breaks, or the signal
 * stops it. Never rejects: every way of ending is a `PumpEnd`, so the caller keeps what it counted.
 * The body is destroyed unless it ended by itself.
 */
export function pump(body: Readable, options: PumpOptions): Promise<PumpEnd> {
  return new Promise((resolve) => {
    const gunzip = options.gzip ? createGunzip() : undefined;
    let settled = false;
    const finish = (end: PumpEnd): void => {
      if (settled) return;
      settled = true;
      clearTimeout(stall);
      options.signal.removeEventListener('abort', onAbort);
      if (end.kind !== 'end') {
        body.destroy();
        gunzip?.destroy();
      }
      resolve(end);
    };
    const onAbort = (): void => finish({ kind: 'stopped', reason: options.signal.reason });
    const stall = setTimeout(() => finish({ kind: 'stall' }), options.stallMs);

    // Runs `onData` so that a throw ends the pump instead of escaping from an event handler.
    const deliver = (chunk: Buffer): void => {
      if (settled) return;
      try {
        options.onData(chunk);
      } catch (error) {
        finish({ kind: 'consumer_error', error });
      }
    };
    body.on('data', (chunk: Buffer) => {
      stall.refresh();
      options.onRaw(chunk.length);
      if (!gunzip) deliver(chunk);
    });
    body.on('error', (error) => finish({ kind: 'error', error, inGzip: false }));
    if (gunzip) {
      gunzip.on('data', deliver);
      gunzip.on('error', (error) => finish({ kind: 'error', error, inGzip: true }));
      gunzip.on('end', () => finish({ kind: 'end' }));
      body.pipe(gunzip);
    } else {
      body.on('end', () => finish({ kind: 'end' }));
    }
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Drops a body that will not be read; undici reports the abort as an error, which is expected here. */
export function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}
