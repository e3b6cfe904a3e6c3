import type { DeepSearchClient } from '../deepsearch/client.js';
import { conversationsSince } from './conversation-walk.js';
import type { Recorder, UnownedConversation } from './recorder.js';
import type { ServerClock } from './server-clock.js';

/**
 * Conversations on the server asking one of `lostCreates`' texts that no item owns (`owned`), created since
 * that text's earliest lost create (local epoch ms). Neither API has an idempotency key: a send given up,
 * not found once its window passed and asked again can still land later, and this is how a run finds out
 * that it asked a question twice. Another client asking the same text at the same time is counted too: the
 * server cannot tell them apart.
 */
export async function findUnowned(
  client: DeepSearchClient,
  clock: ServerClock,
  lostCreates: ReadonlyMap<string, number>,
  owned: ReadonlySet<string>,
  signal: AbortSignal,
): Promise<UnownedConversation[]> {
  // The versioned API filters by text, one walk each; the legacy one cannot, so one walk serves every text.
  const walks = client.api === 'versioned' ? [...lostCreates].map(([text, at]) => ({ query: text.slice(0, 200), texts: new Map([[text, at]]) })) : [{ query: undefined, texts: lostCreates }];
  const skip = new Set(owned);
  const found = new Map<string, UnownedConversation>();
  // The walks run at once: each reads every conversation of its text since the text was first given up
  // (most of a run), and one after another they made a long tail after the run's last item. Page tokens
  // let the versioned API take larger pages safely; legacy pages are judged full by their size.
  const pageSize = client.api === 'versioned' ? 100 : 50;
  await Promise.all(
    walks.map(async (walk) => {
      const options = { sentLocal: Math.min(...walk.texts.values()), contentQuery: walk.query, skip, signal, pageSize };
      for await (const conversation of conversationsSince(client, clock, options, { read: 0, looked: 0, since: undefined })) {
        skip.add(conversation.ref);
        const text = conversation.questions[0]?.text;
        // Any lost create's text, not only this walk's: a text can contain another, and the walk of the shorter
        // one may be the only one to read it.
        if (text !== undefined && lostCreates.has(text)) found.set(conversation.ref, { ref: conversation.ref, text, createdAt: conversation.createdAt });
      }
    }),
  );
  return [...found.values()];
}

/** A target's side of a run, as the check for conversations no item owns needs it. */
export interface UnownedCheckTarget {
  name: string;
  client: DeepSearchClient;
  clock: ServerClock;
  lostCreates: ReadonlyMap<string, number>;
  owned: ReadonlySet<string>;
}

/**
 * At the end of a run, on each target that lost a create: records and reports the conversations of those
 * texts that no item owns. A failure to look is reported, never the run's.
 */
export async function recordUnowned(
  targets: readonly UnownedCheckTarget[],
  runId: number,
  recorder: Pick<Recorder, 'unownedConversation' | 'lostCreatesChecked' | 'inOneCommit'>,
  signal: AbortSignal,
  log: (message: string) => void,
): Promise<void> {
  await Promise.all(
    targets
      .filter((t) => t.lostCreates.size > 0)
      .map(async (t) => {
        try {
          const found = await findUnowned(t.client, t.clock, t.lostCreates, t.owned, signal);
          const at = new Date().toISOString();
          recorder.inOneCommit(() => {
            for (const conversation of found) recorder.unownedConversation(runId, t.name, conversation, at);
            recorder.lostCreatesChecked(runId, t.name, at);
          });
          if (found.length > 0) {
            log(
              `target ${t.name}: ${found.length} conversation${found.length === 1 ? '' : 's'} asking this run's questions belong${found.length === 1 ? 's' : ''} to no item ` +
                `(${found.map((c) => c.ref).join(', ')}): a create given up reached the server after all (its question was asked twice if its item asked it ` +
                'again), or another client asked the same question meanwhile. Their credits are not in this run; a larger --request-timeout makes this rarer (docs/restarts.md).',
            );
          }
        } catch (error) {
          const why = error instanceof Error ? error.message : String(error);
          log(`target ${t.name}: could not look for conversations no item owns: ${why}`);
          // The report says so: without the check, a create given up that landed after all goes unseen.
          recorder.lostCreatesChecked(runId, t.name, new Date().toISOString(), why);
        }
      }),
  );
}
