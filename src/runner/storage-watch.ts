import type { StorageError } from '../errors/errors.js';
import type { Recorder } from './recorder.js';

/** Watches the recorder: the first storage failure (exit code 6) is kept and aborts `broken`. */
export function storageWatch(recorder: Recorder): { recorder: Recorder; broken: AbortSignal; fault: () => StorageError | undefined } {
  const broken = new AbortController();
  let fault: StorageError | undefined;
  // A commit runs after the writes it holds returned: its failure, heard here, stops the run at once.
  recorder.onStorageFailure((error) => {
    if (fault) return;
    fault = error;
    broken.abort();
  });
  return { recorder, broken: broken.signal, fault: () => fault };
}
