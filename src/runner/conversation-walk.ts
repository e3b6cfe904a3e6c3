import type { DeepSearchClient } from '../deepsearch/client.js';
import type { ConversationSummary } from '../model/conversation.js';
import type { ConversationSet } from '../deepsearch/names.js';
import type { ServerClock } from './server-clock.js';

/** How far before a send (on the server's clock) a lookup still looks: Date headers have whole seconds, clocks drift. */
export const LOOKUP_MARGIN_MS = 60_000;

/** What a walk did, for the log of whoever walked. */
export interface WalkStats {
  /** Summaries read. */
  read: number;
  /** Conversations read whole (not skipped). */
  looked: number;
  /** Where the walk stops, on the server's clock; undefined while no reply before the send says it. */
  since: number | undefined;
}

export interface WalkOptions {
  /** Local epoch ms of the earliest send looked for: the walk ends at conversations provably older. */
  sentLocal: number;
  /** The versioned API's content filter (the legacy API has none). */
  contentQuery?: string | undefined;
  /** Conversations not to read (those the run owns), under any name the server gives them. */
  skip: ConversationSet;
  signal: AbortSignal;
  firstPageSize?: number;
  pageSize?: number;
  /** At most this many summaries. */
  most?: number;
}

/** A summary a walk kept, with the time it is listed by (newest first). */
export interface Listed {
  summary: ConversationSummary;
  /** Server epoch ms: the legacy API lists by creation, the versioned one by last update. */
  orderMs: number;
}

/** Where a walk back to a send made at local epoch ms `sentLocal` stops, on the server's clock; undefined: it reads every page. */
export function walkFloor(clock: ServerClock, sentLocal: number): number | undefined {
  const serverSent = clock.atLeast(sentLocal);
  return serverSent === undefined || Number.isNaN(serverSent) ? undefined : serverSent - LOOKUP_MARGIN_MS;
}

/**
 * Summaries on the server, newest first, that `skip` does not hold, until they are provably older than the
 * send on the server's clock (less the margin) or `most` summaries were read.
 */
export async function* summariesSince(client: DeepSearchClient, clock: ServerClock, options: WalkOptions, stats: WalkStats): AsyncGenerator<Listed> {
  const { most = Infinity } = options;
  if (most <= 0) return;
  const legacy = client.api === 'legacy';
  const summaries = client.list({
    pageSize: options.pageSize ?? 50,
    ...(options.firstPageSize !== undefined && { firstPageSize: options.firstPageSize }),
    signal: options.signal,
    persistent: true,
    ...(options.contentQuery !== undefined && { contentQuery: options.contentQuery }),
  });
  for await (const summary of summaries) {
    stats.read++;
    // Read per summary: the clock learns from every reply, a page's included.
    stats.since = walkFloor(clock, options.sentLocal);
    const orderMs = Date.parse((legacy ? summary.createdAt : (summary.updatedAt ?? summary.createdAt)) ?? '');
    if (stats.since !== undefined && orderMs < stats.since) return;
    if (!options.skip.has(summary.ref)) yield { summary, orderMs };
    // Without asking for the next one (a list's next page).
    if (stats.read >= most) return;
  }
}
