import type { Recorder } from './recorder.js';

/** Whether a target's replies have already been seen to come from a dsbench emulator, shared by its items. */
export interface EmulatorNoted {
  done: boolean;
}

/**
 * Marks `target` as served by a dsbench emulator the first time one of its replies says so (`served`).
 * Call it inside the commit of what that reply brought, so the mark costs no commit of its own.
 */
export function noteServedByEmulator(recorder: Recorder, runId: number, target: string, noted: EmulatorNoted, served: boolean | undefined): void {
  if (served !== true || noted.done) return;
  recorder.targetServedByEmulator(runId, target);
  noted.done = true;
}
