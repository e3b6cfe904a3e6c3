import { connectionFor, connectionFromEnv, type Connection } from '../config/credentials.js';
import { UsageError } from '../errors/errors.js';
import type { CliIo } from './io.js';

export interface Target {
  connection: Connection;
  /** True when dsbench started its own emulator because no endpoint was given. */
  emulated: boolean;
  close(): Promise<void>;
}

/** Embedded emulator's default pace: a median answer in about 3 s, so a demo is quick but visible. */
const EMBEDDED_TIME_SCALE = 0.1;

/** The instance a command talks to: the configured endpoint, or else an embedded emulator on loopback. */
export async function openTarget(endpointFlag: string | undefined, io: Pick<CliIo, 'env' | 'stderr'>): Promise<Target> {
  const connection = connectionFromEnv(io.env, endpointFlag);
  if (connection) return { connection, emulated: false, close: async () => {} };
  // Imported here: a command given an endpoint never loads the emulator's code.
  const { startEmulator } = await import('../emulator/index.js');
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', timeScale: embeddedTimeScale(io.env) });
  io.stderr.write(`dsbench: no --endpoint or SRC_ENDPOINT given: using the embedded emulator at ${emulator.url} (answers are emulated)\n`);
  return {
    connection: connectionFor(emulator.url, emulator.adminToken, {}),
    emulated: true,
    close: () => emulator.stop(),
  };
}

/** `DSBENCH_EMULATOR_TIME_SCALE` overrides the embedded emulator's pace (tests make answers near-instant). */
function embeddedTimeScale(env: Record<string, string | undefined>): number {
  const raw = env.DSBENCH_EMULATOR_TIME_SCALE;
  if (raw === undefined || raw.trim() === '') return EMBEDDED_TIME_SCALE;
  const scale = Number(raw);
  if (!(Number.isFinite(scale) && scale > 0)) {
    throw new UsageError(`DSBENCH_EMULATOR_TIME_SCALE: "${raw}" is not a positive number (real time per emulated time, e.g. 0.01)`);
  }
  return scale;
}
