import type { DeepSearchClient } from '../deepsearch/client.js';
import { DsbenchError, HttpStatusError } from '../errors/errors.js';
import type { Recorder } from './recorder.js';
import type { ResumeItem } from '../model/run.js';

export interface CleanupContext {
  runId: number;
  recorder: Recorder;
  client: DeepSearchClient;
  log: (message: string) => void;
}

/** `--cleanup`: deletes a recorded conversation and records that it is gone; a failure is logged, not thrown, unless the run was taken over. */
export async function deleteConversation(ctx: CleanupContext, key: string, ref: string): Promise<void> {
  // Nor for a run another process took over (this throws, ending the run): the conversation is that process's.
  ctx.recorder.assertHeld();
  try {
    // Its own deadline: this also runs after the run's signal was aborted.
    await ctx.client.delete(ref, { signal: AbortSignal.timeout(30_000), persistent: true });
    ctx.recorder.conversationDeleted(ctx.runId, key, new Date().toISOString());
  } catch (error) {
    // Already gone (deleted by hand, or by a run that died before recording it): nothing is left to delete.
    if (error instanceof HttpStatusError && error.status === 404) {
      ctx.recorder.conversationDeleted(ctx.runId, key, new Date().toISOString());
      return;
    }
    const why = error instanceof DsbenchError ? error.message : String(error);
    ctx.log(`${key}: --cleanup could not delete ${ref}: ${why}; delete it later with: dsbench conversations delete ${ref}`);
  }
}

/** A finished item whose conversation is not deleted yet (e.g. finished just before a crash): --cleanup on resume deletes it. */
export function isLeftToDelete(item: ResumeItem): item is ResumeItem & { conversationRef: string } {
  return item.status === 'done' && item.conversationRef !== undefined && !item.deleted;
}
