import { DsbenchError, StorageError } from '../errors/errors.js';
import type { ItemContext } from './item-context.js';

/** Best effort, with its own deadline: the run's signal may already be aborted. */
export async function cancelOnServer(ctx: ItemContext, key: string, ref: string | undefined, questionId?: string): Promise<void> {
  if (ref === undefined) return;
  // Not for a run another process took over: its questions are that process's (this throws, ending the run).
  ctx.run.recorder.assertHeld();
  try {
    // Sent even when the store failed: the run stops, and nothing should keep running on the server for it.
    await ctx.target.client.cancel(ref, questionId, { signal: AbortSignal.timeout(30_000), persistent: true, cleanup: true });
  } catch (error) {
    ctx.run.log(`${key}: could not cancel ${ref} on the server: ${error instanceof DsbenchError ? error.message : String(error)}`);
  }
}

/**
 * Records a question the server just took; when the store failed, cancels it before the storage error
 * goes on: no record would show it, and nothing else would stop it.
 */
export async function recordedOrCancelled(ctx: ItemContext, key: string, ref: string, questionId: string | undefined, record: () => void): Promise<void> {
  try {
    record();
  } catch (error) {
    if (!(error instanceof StorageError)) throw error;
    ctx.run.log(`${key}: ${ref} was asked but could not be recorded: cancelling it on the server`);
    await cancelOnServer(ctx, key, ref, questionId);
    throw error;
  }
}
