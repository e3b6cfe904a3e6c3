// Headers the client and the emulator share, kept outside src/emulator/ so that the client reads them
// without loading the emulator.

/**
 * Reply header by which every dsbench emulator, embedded or standalone, says its answers are emulated, so
 * a run against `dsbench emulator` is marked emulated like one on the embedded emulator.
 */
export const EMULATOR_HEADER = 'x-dsbench-emulator';

/**
 * Request header naming the client's item a new conversation belongs to (a suite item and its repeat).
 * The emulator draws that conversation's answers from it, so a rehearsal gives the same answers whatever
 * the order its questions arrive in; a real instance ignores it.
 */
export const ITEM_KEY_HEADER = 'x-dsbench-item';
