import { createParser, type EventSourceParser } from 'eventsource-parser';

/** The platform's own decoders allow up to 10 MB per event. */
export const MAX_EVENT_BYTES = 10 * 1024 * 1024;

/**
 * Body bytes to (event name, data) pairs. Bytes are read as latin1, one char per byte (see text.ts): SSE
 * framing is ASCII, so the parser frames exactly as on decoded text, chunk boundaries inside a UTF-8
 * character are harmless, and the size limit counts bytes. `data` is handed on as bytes-as-latin1.
 */
export class EventDecoder {
  /** Set once an event outgrew MAX_EVENT_BYTES; nothing after it can be framed. */
  tooLarge = false;
  private readonly parser: EventSourceParser;

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
    this.parser.feed(chunk.toString('latin1'));
    return !this.tooLarge;
  }
}
