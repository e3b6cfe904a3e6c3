import { readProductVersion } from '../deepsearch/product-version.js';
import type { RunContext, RunTarget } from './item-context.js';

/**
 * Reads each target's product version (after the preflight) and records it: an unreadable one is recorded as
 * unknown and logged, never a failure; a resume that reads another version than the one first recorded says so.
 */
export async function recordProductVersions(targets: readonly RunTarget[], run: RunContext, timeoutMs?: number): Promise<void> {
  await Promise.all(
    targets.map(async (t) => {
      const reading = await readProductVersion(t.connection, timeoutMs, run.signals.stop);
      const kept = run.recorder.productVersion(run.runId, t.name, reading);
      if ('unknown' in reading && kept === null) run.log(`target ${t.name}: product version unknown (${reading.unknown}); the run goes on`);
      else if ('version' in reading && kept !== reading.version) {
        run.log(`target ${t.name}: the instance now reports product version ${reading.version}; the run keeps ${kept ?? 'unknown'}, recorded when it started`);
      }
    }),
  );
}
