import type { DeepSearchClient } from '../deepsearch/client.js';
import type { Conversation, ConversationSummary } from '../deepsearch/model.js';
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
  /** Conversations not to read (those the run owns). */
  skip: ReadonlySet<string>;
  signal: AbortSignal;
  firstPageSize?: number;
  pageSize?: number;
  /** At most this many summaries. */
  most?: number;
}

/**
 * Conversations on the server, newest first, that `skip` does not hold, each read whole, until they are
 * provably older than the send on the server's clock (less the margin) or `most` summaries were read:
 * the one walk of a lost send's lookup and of the end-of-run check for conversations no item owns.
 */
export async function* conversationsSince(client: DeepSearchClient, clock: ServerClock, options: WalkOptions, stats: WalkStats): AsyncGenerator<Conversation> {
  const { signal, most = Infinity } = options;
  if (most <= 0) return;
  // Legacy lists by id (creation order), the versioned API by last update: either is newest first.
  const orderOf = (s: ConversationSummary) => Date.parse((client.api === 'legacy' ? s.createdAt : (s.updatedAt ?? s.createdAt)) ?? '');
  const summaries = client.list({
    pageSize: options.pageSize ?? 50,
    ...(options.firstPageSize !== undefined && { firstPageSize: options.firstPageSize }),
    signal,
    persistent: true,
    ...(options.contentQuery !== undefined && { contentQuery: options.contentQuery }),
  });
  for await (const summary of summaries) {
    stats.read++;
    const serverSent = clock.atLeast(options.sentLocal);
    stats.since = serverSent === undefined || Number.isNaN(serverSent) ? undefined : serverSent - LOOKUP_MARGIN_MS;
    if (stats.since !== undefined && orderOf(summary) < stats.since) return;
    if (!options.skip.has(summary.ref)) {
      stats.looked++;
      const conversation = await client.get(summary.ref, { signal, persistent: true });
      clock.observe(conversation.serverDate);
      yield conversation;
    }
    // Without asking for the next one (a list's next page).
    if (stats.read >= most) return;
  }
}
