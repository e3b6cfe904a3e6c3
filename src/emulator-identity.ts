/**
 * Reply header by which every dsbench emulator, embedded or standalone, says its answers are emulated, so
 * a run against `dsbench emulator` is marked emulated like one on the embedded emulator. Outside
 * src/emulator/ so that the client reads it without loading the emulator.
 */
export const EMULATOR_HEADER = 'x-dsbench-emulator';
