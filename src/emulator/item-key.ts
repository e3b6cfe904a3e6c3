/**
 * Request header naming the client's item a new conversation belongs to (a suite item and its repeat).
 * The emulator draws that conversation's answers from it, so a rehearsal gives the same answers whatever
 * the order its questions arrive in; a real instance ignores it.
 */
export const ITEM_KEY_HEADER = 'x-dsbench-item';
