import type { DeepSearchClient } from '../deepsearch/client.js';
import type { ConversationSet } from '../deepsearch/names.js';
import type { Conversation } from '../model/conversation.js';
import type { Listed } from './conversation-walk.js';
import type { ServerClock } from './server-clock.js';

/** How a lookup reads the conversations it listed, and what it could and could not read. */
export interface ListedReads {
  client: DeepSearchClient;
  clock: ServerClock;
  /** Conversations items own: never read. */
  claimed: ConversationSet;
  signal: AbortSignal;
  /** Each read's deadline: a conversation that keeps failing is given up, not retried for the lookup's whole time. */
  readMs: number;
  /** Conversations read. */
  read: number;
  /** Refs of those that could not be read. */
  failed: string[];
}

/**
 * The listed conversations that may ask `texts`, each read whole. One whose listed first question (the legacy
 * list carries it) is not among `texts` is skipped unread; one that cannot be read (not JSON, always 500) is
 * noted in `failed` and skipped: an unrelated conversation's failure never decides a lookup.
 */
export async function* readListed(listed: Iterable<Listed> | AsyncIterable<Listed>, texts: string | ReadonlySet<string> | ReadonlyMap<string, unknown>, reads: ListedReads): AsyncGenerator<Conversation> {
  const wanted = (text: string) => (typeof texts === 'string' ? text === texts : texts.has(text));
  for await (const { summary } of listed) {
    if (reads.claimed.has(summary.ref)) continue;
    if (summary.firstQuestion !== undefined && !wanted(summary.firstQuestion)) continue;
    reads.read++;
    let conversation: Conversation;
    try {
      conversation = await reads.client.get(summary.ref, { signal: AbortSignal.any([reads.signal, AbortSignal.timeout(reads.readMs)]), persistent: true });
    } catch (error) {
      if (reads.signal.aborted) throw error;
      reads.failed.push(summary.ref);
      continue;
    }
    reads.clock.observe(conversation.serverDate);
    yield conversation;
  }
}
