import type { DeepSearchClient } from '../deepsearch/client.js';
import { DsbenchError } from '../http/errors.js';
import type { Recorder, ResumeItem } from './recorder.js';

export interface CleanupContext {
  runId: number;
  recorder: Recorder;
  client: DeepSearchClient;
  log: (message: string) => void;
}

/** `--cleanup`: deletes a recorded conversation and records that it is gone; a failure is logged, never thrown. */
export async function deleteConversation(ctx: CleanupContext, key: string, ref: string): Promise<void> {
  try {
    // Its own deadline: this also runs after the run's signal was aborted.
    await ctx.client.delete(ref, { signal: AbortSignal.timeout(10_000) });
    ctx.recorder.conversationDeleted(ctx.runId, key, new Date().toISOString());
  } catch (error) {
    ctx.log(`${key}: --cleanup could not delete ${ref}: ${error instanceof DsbenchError ? error.message : String(error)}`);
  }
}

/** Items a crash left finished but not yet deleted: on resume, --cleanup deletes their conversations. */
export function leftToDelete(items: Iterable<ResumeItem>): Array<ResumeItem & { conversationRef: string }> {
  return [...items].filter((i): i is ResumeItem & { conversationRef: string } => i.status === 'done' && i.conversationRef !== undefined && !i.deleted);
}
