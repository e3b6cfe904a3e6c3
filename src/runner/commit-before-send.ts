import { LeaseLostError, RunHeldError } from '../errors/errors.js';
import type { BeforeSend } from '../http/transport.js';
import type { Recorder } from './recorder.js';

/**
 * Group commit: a request goes out only once what was recorded before it is committed. A cleanup (a cancel)
 * goes even when nothing more can be recorded, so that no question is left running for nobody; but not once
 * another process took the run over: its questions are that process's.
 */
export function commitBeforeSend(recorder: Pick<Recorder, 'committed'>): BeforeSend {
  return ({ cleanup }) => {
    const committing = recorder.committed();
    if (!cleanup || committing === undefined) return committing;
    return committing.catch((error: unknown) => {
      if (error instanceof LeaseLostError || error instanceof RunHeldError) throw error;
    });
  };
}
