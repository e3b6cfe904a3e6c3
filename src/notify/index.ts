import type Database from 'better-sqlite3';
import { runRow, runTargets } from '../store/queries.js';
import { changePayload } from './change.js';
import { type Delivery, deliverAll } from './post.js';
import { nightOf, previousNightId } from './nights.js';
import type { NotifyPayload } from './payload.js';
import type { NotifyReceiver } from './receivers.js';

// `run --notify`: after the run's verdict, tell the receivers when it differs from the previous night's.

export { parseReceivers, type NotifyReceiver } from './receivers.js';
export { NOTIFY_DEADLINE_MS } from './post.js';

export interface NotifyOutcome {
  /** Why nothing was posted (no earlier night, nothing changed); absent when something was. */
  skipped?: string;
  payload?: NotifyPayload;
  deliveries: Delivery[];
}

/** Compares run `runId` with the night before it and posts to every receiver when they differ. Never throws on a receiver. */
export async function notifyOnChange(db: Database.Database, runId: number, suite: string, receivers: readonly NotifyReceiver[], deadlineMs: number): Promise<NotifyOutcome> {
  if (runRow(db, runId)?.status === 'aborted') return { skipped: `run ${runId} was stopped before its end; resume it to judge the night`, deliveries: [] };
  const previousId = previousNightId(db, runId, suite);
  if (previousId === undefined) return { skipped: `no earlier night of suite ${suite} with these targets to compare with`, deliveries: [] };
  const payload = changePayload(suite, runTargets(db, runId).map((t) => t.name), nightOf(db, previousId), nightOf(db, runId));
  if (!payload) return { skipped: `the verdict and flaky questions are as on run ${previousId}`, deliveries: [] };
  return { payload, deliveries: await deliverAll(receivers, payload, deadlineMs) };
}

/** The run summary's lines on notifying: what was posted where, and each receiver that failed, by name. */
export function notifyText(outcome: NotifyOutcome): string {
  if (outcome.skipped) return `\nNotify: nothing posted (${outcome.skipped}).\n`;
  const lines = outcome.deliveries.map((d) => `  ${d.receiver}: ${d.ok ? `posted (${d.detail})` : `NOT POSTED: ${d.detail}`}`);
  const failed = outcome.deliveries.filter((d) => !d.ok).length;
  const head = `Notify (${outcome.payload!.changes.join(', ')})${failed > 0 ? `: ${failed} of ${outcome.deliveries.length} receivers failed; the run's exit code is its own` : ''}`;
  return `\n${head}\n${lines.join('\n')}\n`;
}
