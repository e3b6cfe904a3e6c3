import { setTimeout as sleep } from 'node:timers/promises';
import type { DeepSearchClient } from '../deepsearch/client.js';
import { ConversationSet } from '../deepsearch/names.js';
import { AbortedError, ForeignConversationError, LookupIncompleteError } from '../errors/errors.js';
import type { Conversation } from '../model/conversation.js';
import { summariesSince, walkFloor, type WalkStats } from './conversation-walk.js';
import { CreatesInFlight } from './creates-in-flight.js';
import { isoNow } from './iso-now.js';
import { LandingWatch } from './landing-watch.js';
import type { Recorder } from './recorder.js';
import { ServerClock } from './server-clock.js';
import type { ItemSlot } from './slots.js';
import { readListed, type ListedReads } from './listed-reads.js';
import { recordUnowned } from './unowned.js';
import { redact } from '../redact.js';

/** What a resumed run brought back of one target's lost sends. */
export interface RecoveredSends {
  /** Conversations items of the run own. */
  claimed?: ConversationSet | undefined;
  /** What the target's clock said in the run before. */
  clock?: ServerClock | undefined;
  /** Given-up creates: text to its earliest send, local epoch ms. */
  lostCreates?: Map<string, number> | undefined;
}

export interface SendRecoveryOptions {
  runId: number;
  target: string;
  recorder: Recorder;
  client: DeepSearchClient;
  log: (message: string) => void;
  /**
   * How long after it was sent a request may still reach the server (the longest request timeout of the
   * processes that sent the run's requests): a turn not found before then may still be landing, so it is
   * looked for again first.
   */
  sendWindowMs: number;
  /**
   * Local epoch ms by which the run's earlier processes had given up all their sends (they released the
   * run or are gone), when known: a resumed send was given up then at the latest, if its timeout had not
   * run out before. See RunLease.earlierSendsGivenUpBy.
   */
  earlierSendsGivenUpBy: number | undefined;
}

/** A turn that may have been sent: which item's, in which conversation (undefined for a create), which turn, which text, sent when. */
export interface SentTurn {
  key: string;
  ref: string | undefined;
  index: number;
  text: string;
  sentAt: string | undefined;
}

/** What a look found (`ref`), and what it saw, for the log. */
export interface Looked {
  ref: string | undefined;
  said: string;
}

/**
 * Conversations per page of a lookup; its first page is small: a create that acted is among the newest,
 * and a walk often ends at once (its conversations older than the send), so most lookups need only a few.
 */
const LOOKUP_FIRST_PAGE = 10;
const LOOKUP_PAGE = 50;

/**
 * One target's recovery of lost sends. Neither API has an idempotency key: a send whose outcome is unknown
 * (the connection broke after it was sent, a 5xx, a process that died) is looked for on the server before it
 * is asked again, and the run checks at its end for late landings of the creates it gave up. It owns what
 * that needs, shared by the target's items: the conversations they own, the creates in flight, the lost
 * creates, the walks of their texts and the server's clock.
 */
export class SendRecovery {
  /**
   * Conversations owned by items of this run on this target: a send whose outcome is unknown must not be
   * matched to another item's conversation, e.g. another repeat of the same text, whatever user segment
   * the server wrote in its name.
   */
  private readonly claimed: ConversationSet;
  /** The target's clock, from its replies' Date headers: lost sends are looked for on it. */
  private readonly clock: ServerClock;
  /**
   * First questions whose create was given up with its outcome unknown, by text, with the earliest such send
   * (local epoch ms): the run looks for late landings of these texts at its end.
   */
  private readonly lostCreates: Map<string, number>;
  /** Creates whose reply has not come back yet: a lookup waits for them before it takes an unclaimed conversation. */
  private readonly creates = new CreatesInFlight();
  /** Walks of the texts whose creates were lost, shared by their lookups and the end-of-run check. */
  private readonly landings: LandingWatch;
  /** Which item owns a conversation this process saw created or took, for a create reply that names it again. */
  private readonly owners = new Map<string, string>();

  constructor(
    private readonly options: SendRecoveryOptions,
    recovered: RecoveredSends = {},
  ) {
    this.claimed = recovered.claimed ?? new ConversationSet();
    this.clock = recovered.clock ?? new ServerClock();
    this.lostCreates = recovered.lostCreates ?? new Map<string, number>();
    this.landings = new LandingWatch(options.client, this.clock, this.claimed);
  }

  get sendWindowMs(): number {
    return this.options.sendWindowMs;
  }

  /** A reply's Date header: lost sends are looked for on the server's clock. */
  observe(serverDate: string | undefined): void {
    this.clock.observe(serverDate);
  }

  /**
   * Sends item `key`'s create of `text` with `create`: in flight until it settles, its conversation claimed
   * before. A reply naming a conversation another item owns, or one that does not ask `text` first, is a
   * broken or hostile server's: never taken as this item's (its answer is another's; a follow-up or a delete
   * would act on another item's conversation).
   */
  async create(key: string, text: string, create: () => Promise<Conversation>): Promise<Conversation> {
    const settled = this.creates.begin(text);
    let conversation: Conversation;
    try {
      conversation = await create();
      this.checkCreated(key, text, conversation);
      this.claimed.add(conversation.ref);
      this.owners.set(conversation.ref, key);
    } finally {
      settled();
    }
    this.clock.observe(conversation.serverDate);
    return conversation;
  }

  private checkCreated(key: string, text: string, conversation: Conversation): void {
    const { ref } = conversation;
    if (this.claimed.has(ref)) {
      const owner = this.owners.get(ref) ?? 'another item of this run';
      throw new ForeignConversationError(`${key}: the server answered its create with conversation ${ref}, which ${owner} owns; nothing of it is recorded for ${key}, nothing is posted into it or deleted (a broken or hostile server, or a proxy caching replies)`);
    }
    const first = conversation.questions[0]?.text;
    if (first !== undefined && first !== text && first !== redact(text)) {
      throw new ForeignConversationError(`${key}: the server answered its create with conversation ${ref}, whose first question is not the one sent; nothing of it is recorded, posted into or deleted (a broken or hostile server, or a proxy caching replies)`);
    }
  }

  /** How long a lookup may take (a few request timeouts) before its item is kept unfinished for a resume. */
  private get lookupMs(): number {
    return 3 * this.options.sendWindowMs;
  }

  /**
   * `look` under the lookup's deadline: one that cannot finish (its deadline passed, a conversation it had
   * to read kept failing) leaves whether the send acted unknown, never a service outcome.
   */
  private async bounded(sent: SentTurn, signal: AbortSignal, look: (deadline: AbortSignal) => Promise<Looked>): Promise<Looked> {
    try {
      return await look(AbortSignal.any([signal, AbortSignal.timeout(this.lookupMs)]));
    } catch (error) {
      if (signal.aborted || error instanceof LookupIncompleteError) throw error;
      const why = error instanceof Error ? error.message : String(error);
      throw new LookupIncompleteError(`${sent.key}: could not finish looking on the server for turn ${sent.index} within ${seconds(this.lookupMs)} (${why}); its item is kept unfinished: dsbench run --resume looks again`);
    }
  }

  /** A turn an earlier process may have sent before it died or gave the run up: looked for before it is asked again. */
  async findResumed(sent: SentTurn, slot: ItemSlot, signal: AbortSignal): Promise<Looked> {
    this.lost(sent);
    return this.findWithinWindow(sent, this.givenUpEarlier(sent.sentAt), slot, signal);
  }

  /** A send whose attempt failed at local epoch ms `givenUpAt` with its outcome unknown: looked for before it is sent again. */
  async findFailed(sent: SentTurn, givenUpAt: number, slot: ItemSlot, signal: AbortSignal): Promise<Looked> {
    this.lost(sent);
    return this.findWithinWindow(sent, givenUpAt, slot, signal);
  }

  /**
   * A send whose attempt failed with its outcome unknown while the run is aborting: looked for once, with a
   * deadline of its own, so that what is found is cancelled; undefined when the look failed.
   */
  async findAborting(sent: SentTurn): Promise<Looked | undefined> {
    this.lost(sent);
    return this.findNow(sent, AbortSignal.timeout(10_000)).catch(() => undefined);
  }

  /**
   * A send given up with its outcome unknown. Any lost create of a text, not only one asked again: a lookup
   * of another repeat may have taken its late landing, and that repeat's own send then lands unowned. Only
   * first questions: a follow-up asked twice would be a question more in the item's own conversation.
   */
  private lost(sent: SentTurn): void {
    if (sent.index !== 0) return;
    const { sentAt, text } = sent;
    const at = Date.parse(sentAt ?? '');
    const earliest = this.lostCreates.get(text);
    if (earliest !== undefined && !(at < earliest) && !Number.isNaN(earliest)) return;
    this.lostCreates.set(text, at);
    // Committed before the create is looked for or sent again: a resume checks it at its end too.
    if (sentAt !== undefined && !Number.isNaN(at)) this.options.recorder.lostCreate(this.options.runId, this.options.target, text, sentAt);
  }

  /**
   * When an earlier process gave up a send it made at `sentAt`: at the latest when its request timeout ran
   * out, or when it ended; one of unknown time, by when this process took the run over, or else now.
   */
  private givenUpEarlier(sentAt: string | undefined): number {
    const { earlierSendsGivenUpBy, sendWindowMs } = this.options;
    const sent = Date.parse(sentAt ?? '');
    return Number.isNaN(sent) ? (earlierSendsGivenUpBy ?? Date.now()) : Math.min(sent + sendWindowMs, earlierSendsGivenUpBy ?? Infinity);
  }

  /**
   * Looks for a turn that may have been sent and given up (its attempt failed, or its process died) at
   * local epoch ms `givenUpAt`; not found while its send could still be landing, waits out the window and
   * looks once more, through every conversation listed since the send. The window runs a request timeout
   * from when the send was given up, not from when it was sent: a request that timed out was still unread
   * somewhere (a busy server, a proxy's queue) when the client stopped waiting, and may be acted on after that.
   * What it saw before waiting is logged in one line with the wait; what the last look saw is returned for
   * the caller's line with what it decided: a run under faults logs three lines per lost send, not five.
   *
   * `slot` is given up while it waits (asking nothing of the server) and taken again before the next request.
   */
  private async findWithinWindow(sent: SentTurn, givenUpAt: number, slot: ItemSlot, signal: AbortSignal): Promise<Looked> {
    const { log, sendWindowMs } = this.options;
    const at = Date.parse(sent.sentAt ?? '');
    const windowEnd = (Number.isNaN(at) ? givenUpAt : Math.max(at, givenUpAt)) + sendWindowMs;
    if (windowEnd - Date.now() > 0) {
      // Still landing, this look is only a shortcut (a create that acted is newest, on the first page): the
      // look after the window is the one that decides.
      const first = await this.bounded(sent, signal, (deadline) => this.findNow(sent, deadline, LOOKUP_FIRST_PAGE));
      if (first.ref !== undefined) return first;
      const waitMs = windowEnd - Date.now();
      if (waitMs <= 0) log(`${sent.key}: ${first.said}`);
      else {
        log(`${sent.key}: ${first.said}; turn ${sent.index} is not on the server yet, but its send could still be landing: looking again in ${seconds(waitMs)}`);
        // Waiting asks nothing of the server: another item runs in the slot meanwhile.
        slot.leave();
        try {
          await sleep(waitMs, undefined, { signal });
        } catch {
          throw new AbortedError(`${sent.key}: waiting for a send to land aborted`);
        }
        await slot.retake(signal);
      }
    }
    if (sent.ref !== undefined) return this.bounded(sent, signal, (deadline) => this.findNow(sent, deadline));
    return this.bounded(sent, signal, (deadline) => this.findLanded(sent, at, windowEnd, deadline));
  }

  /**
   * Looks on the server now for a turn that may have been sent: the conversation's questions (a follow-up),
   * or the pages of conversations, newest first, until they are provably older than the send on the
   * server's clock or `most` were read (a create).
   */
  private async findNow(sent: SentTurn, signal: AbortSignal, most = Infinity): Promise<Looked> {
    const { client, log } = this.options;
    const { key, ref, index, text } = sent;
    if (index > 0 && ref !== undefined) {
      const conversation = await client.get(ref, { signal, persistent: true });
      this.clock.observe(conversation.serverDate);
      const found = conversation.questions[index]?.text === text;
      const said = `follow-up ${index} ${found ? 'is' : 'is not'} in conversation ${ref}`;
      if (found) log(`${key}: ${said}`);
      return { ref: found ? ref : undefined, said };
    }
    if (ref !== undefined) return { ref, said: `conversation ${ref}` };
    const walk: WalkStats = { read: 0, looked: 0, since: undefined };
    const options = { sentLocal: Date.parse(sent.sentAt ?? ''), contentQuery: client.api === 'versioned' ? text.slice(0, 200) : undefined, skip: this.claimed, signal, pageSize: LOOKUP_PAGE, firstPageSize: LOOKUP_FIRST_PAGE, most };
    const reads = this.reads(signal);
    const found = await this.takeUnclaimed(key, text, readListed(summariesSince(client, this.clock, options, walk), text, reads));
    incomplete(sent, found, reads);
    walk.looked = reads.read;
    const back = walk.read === most ? `among the newest ${most}` : walk.since === undefined ? 'through every page' : `back to ${new Date(walk.since).toISOString()} on the server's clock`;
    return { ref: found, said: `looked at ${walk.looked} conversations ${back}: none is this question` };
  }

  /**
   * At the end of a run that lost a create on this target: records and reports the conversations of those
   * texts that no item owns. A failure to look is reported, never the run's.
   */
  async checkUnowned(signal: AbortSignal): Promise<void> {
    if (this.lostCreates.size === 0) return;
    const { runId, target, recorder, log } = this.options;
    // A deadline of its own: a server that keeps failing must not hold the run's end (and a nightly job) open.
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(this.lookupMs)]);
    await recordUnowned({ name: target, landings: this.landings, lostCreates: this.lostCreates, reads: this.reads(deadline) }, runId, recorder, deadline, log);
  }

  /**
   * The look that decides whether a create sent at local epoch ms `sentLocal` landed: the conversations of its
   * text no item owns, listed since the send, as a walk begun once the send could no longer land (at
   * `notBefore`) left them. The target's walks of the text are shared (`LandingWatch`).
   */
  private async findLanded(sent: SentTurn, sentLocal: number, notBefore: number, signal: AbortSignal): Promise<Looked> {
    const listed = await this.landings.unowned(sent.text, sentLocal, notBefore, signal);
    const reads = this.reads(signal);
    const found = await this.takeUnclaimed(sent.key, sent.text, readListed(listed, sent.text, reads));
    incomplete(sent, found, reads);
    const looked = reads.read;
    const since = walkFloor(this.clock, sentLocal);
    const back = since === undefined ? 'through every page' : `back to ${new Date(since).toISOString()} on the server's clock`;
    return { ref: found, said: `looked at ${looked} conversations ${back}: none is this question` };
  }

  /** Takes the first of `conversations` that asks only `text` and that no item claimed, for item `key`. */
  private async takeUnclaimed(key: string, text: string, conversations: AsyncIterable<Conversation>): Promise<string | undefined> {
    const { runId, recorder, log } = this.options;
    for await (const conversation of conversations) {
      if (conversation.questions[0]?.text === text && conversation.questions.length === 1) {
        // A create of the same text (another repeat) still waiting for its reply may own it: it claims it first.
        await this.creates.settled(text);
        if (this.claimed.has(conversation.ref)) continue;
        log(`${key}: found conversation ${conversation.ref} sent before the interruption; following it instead of asking again`);
        this.claimed.add(conversation.ref);
        this.owners.set(conversation.ref, key);
        recorder.conversationCreated(runId, key, conversation.ref, isoNow());
        return conversation.ref;
      }
    }
    return undefined;
  }

  /** Reads of listed conversations, each under a deadline of one request timeout's worth of retries. */
  private reads(signal: AbortSignal): ListedReads {
    const { client, sendWindowMs } = this.options;
    return { client, clock: this.clock, claimed: this.claimed, signal, readMs: 2 * sendWindowMs, read: 0, failed: [] };
  }
}

/** A lookup that found nothing but could not read every conversation it had to: whether the send acted is unknown. */
function incomplete(sent: SentTurn, found: string | undefined, reads: ListedReads): void {
  if (found !== undefined || reads.failed.length === 0) return;
  throw new LookupIncompleteError(`${sent.key}: could not read conversation${reads.failed.length === 1 ? '' : 's'} ${reads.failed.join(', ')} while looking for turn ${sent.index} on the server (${reads.failed.length === 1 ? 'it keeps' : 'they keep'} failing); its item is kept unfinished: dsbench run --resume looks again`);
}

export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms < 10_000 ? 1 : 0))} s`;
}
