// The decoder reads body bytes as latin1 (one char per byte, lossless, no state across chunks), so a chunk
// boundary inside a multi-byte UTF-8 character cannot corrupt anything; text is turned into real UTF-8
// strings only where a whole event or value is at hand.

/** UTF-8 text of a string whose chars are bytes. */
export function latin1ToUtf8(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** Bytes of a string's UTF-8 form, as a string whose chars are bytes. */
export function utf8ToLatin1(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}
