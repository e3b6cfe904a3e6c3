import { StorageError } from '../errors/errors.js';
import { onMethodError } from '../method-errors.js';
import type { Recorder } from './recorder.js';

/** Wraps the recorder: the first storage failure (exit code 6) is kept and aborts `broken`, then rethrown. */
export function storageWatch(recorder: Recorder): { recorder: Recorder; broken: AbortSignal; fault: () => StorageError | undefined } {
  const broken = new AbortController();
  let fault: StorageError | undefined;
  const note = (error: unknown) => {
    if (error instanceof StorageError && !fault) {
      fault = error;
      broken.abort();
    }
  };
  const watched = onMethodError(recorder, note);
  // A commit runs after the writes it holds returned: its failure stops the run at once, not at the next write.
  recorder.onCommitFailure(note);
  return { recorder: watched, broken: broken.signal, fault: () => fault };
}
