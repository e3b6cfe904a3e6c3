import { createParser, type EventSourceParser } from 'eventsource-parser';

/** The platform's own decoders allow up to 10 MB per event. */
export const MAX_EVENT_BYTES = 10 * 1024 * 1024;

const LF = 10;
const CR = 13;

/**
 * Body bytes to (event name, data) pairs. Bytes are read as latin1, one char per byte (see text.ts): SSE
 * framing is ASCII, so the parser frames exactly as on decoded text, chunk boundaries inside a UTF-8
 * character are harmless, and the size limit counts bytes. `data` is handed on as bytes-as-latin1.
 *
 * The parser is fed whole lines: each chunk up to its last line end, the rest carried (as bytes, in a reused
 * buffer) to the front of the next chunk. Fed a chunk that ends inside a line, the parser keeps the fragment
 * and joins it to the next chunk, a second copy of every byte on the JS heap; this way each byte becomes one
 * string once. The parser still does all the framing: where the bytes are cut changes nothing in what it
 * decodes (the tests cut them everywhere).
 */
export class EventDecoder {
  /** Set once an event outgrew MAX_EVENT_BYTES; nothing after it can be framed. */
  tooLarge = false;
  private readonly parser: EventSourceParser;
  /** The unfinished line carried from the last chunk is `carry[0, carried)`. */
  private carry = Buffer.allocUnsafe(256 * 1024);
  private carried = 0;

  constructor(onEvent: (name: string, data: string) => void) {
    this.parser = createParser({
      maxBufferSize: MAX_EVENT_BYTES,
      // The SSE default name; the platform always names its events.
      onEvent: (e) => onEvent(e.event ?? 'message', e.data),
      // Stray `id:`/`retry:`/unknown fields are tolerated; only the size limit stops decoding.
      onError: (e) => {
        if (e.type === 'max-buffer-size-exceeded') this.tooLarge = true;
      },
    });
  }

  /** Decodes a chunk; false once an event was too large (the caller must stop). */
  feed(chunk: Buffer): boolean {
    if (this.tooLarge) return false;
    // A line ends at LF, CR or CRLF; LF is searched first because it nearly always is there.
    let end = chunk.lastIndexOf(LF) + 1;
    if (end === 0) end = chunk.lastIndexOf(CR) + 1;
    if (end === 0) {
      this.keep(chunk);
      if (this.carried > MAX_EVENT_BYTES) this.tooLarge = true;
      return !this.tooLarge;
    }
    if (this.carried === 0) {
      this.parser.feed(chunk.toString('latin1', 0, end));
    } else {
      this.keep(chunk.subarray(0, end));
      const text = this.carry.toString('latin1', 0, this.carried);
      this.carried = 0;
      this.parser.feed(text);
    }
    if (end < chunk.length) this.keep(chunk.subarray(end));
    return !this.tooLarge;
  }

  private keep(bytes: Buffer): void {
    const needed = this.carried + bytes.length;
    if (needed > this.carry.length) {
      const bigger = Buffer.allocUnsafe(Math.max(needed, this.carry.length * 2));
      this.carry.copy(bigger, 0, 0, this.carried);
      this.carry = bigger;
    }
    bytes.copy(this.carry, this.carried);
    this.carried = needed;
  }
}
