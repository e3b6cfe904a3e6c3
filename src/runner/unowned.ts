import type { LandingWatch } from './landing-watch.js';
import { readListed, type ListedReads } from './listed-reads.js';
import type { Recorder } from './recorder.js';
import type { UnownedConversation } from '../model/run.js';

/**
 * Conversations on the server asking one of `lostCreates`' texts that no item owns, created since that text's
 * earliest lost create (local epoch ms). Neither API has an idempotency key: a send given up, not found once
 * its window passed and asked again can still land later, and this is how a run finds out that it asked a
 * question twice. Another client asking the same text at the same time is counted too: the server cannot
 * tell them apart. Each text's list is walked once more, back to where its last walk during the run began
 * (`LandingWatch`): what those walks read is not read again.
 */
export async function findUnowned(landings: LandingWatch, lostCreates: ReadonlyMap<string, number>, reads: ListedReads): Promise<UnownedConversation[]> {
  const listed = await landings.unownedNow(lostCreates, reads.signal);
  const found: UnownedConversation[] = [];
  // Any lost create's text, not only the walk's own: a text can contain another, and the walk of the
  // shorter one may be the only one to read it.
  for await (const conversation of readListed(listed, lostCreates, reads)) {
    const text = conversation.questions[0]?.text;
    if (text !== undefined && lostCreates.has(text)) found.push({ ref: conversation.ref, text, createdAt: conversation.createdAt });
  }
  if (reads.failed.length > 0) throw new Error(`conversation${reads.failed.length === 1 ? '' : 's'} ${reads.failed.join(', ')} could not be read (${reads.failed.length === 1 ? 'it keeps' : 'they keep'} failing)`);
  return found;
}

/** A target's side of a run, as the check for conversations no item owns needs it. */
export interface UnownedCheckTarget {
  name: string;
  landings: LandingWatch;
  lostCreates: ReadonlyMap<string, number>;
  /** How it reads what it listed, under the check's deadline. */
  reads: ListedReads;
}

/**
 * At the end of a run, on a target that lost a create: records and reports the conversations of those
 * texts that no item owns. A failure to look is reported, never the run's.
 */
export async function recordUnowned(
  t: UnownedCheckTarget,
  runId: number,
  recorder: Pick<Recorder, 'unownedConversation' | 'lostCreatesChecked' | 'inOneCommit'>,
  signal: AbortSignal,
  log: (message: string) => void,
): Promise<void> {
  try {
    const found = await findUnowned(t.landings, t.lostCreates, t.reads);
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
}
