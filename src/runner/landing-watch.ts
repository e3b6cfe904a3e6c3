import { setTimeout as sleep } from 'node:timers/promises';
import type { DeepSearchClient } from '../deepsearch/client.js';
import type { ConversationSet } from '../deepsearch/names.js';
import { AbortedError } from '../errors/errors.js';
import { summariesSince, walkFloor, type Listed } from './conversation-walk.js';
import type { ServerClock } from './server-clock.js';

/** A walk of a chain: when it began (local epoch ms) and the send back to which the chain covers once it ends. */
interface Walk {
  startedAt: number;
  covers: number;
  signal: AbortSignal;
  done: Promise<void>;
}

/**
 * Walks of one list: a text's (the versioned API's content query) or, on the legacy API, which cannot
 * filter, every conversation's. Each walk reads back only to where the chain's last finished walk began.
 */
interface Chain {
  query: string | undefined;
  /** Local epoch ms of a send: every conversation listed since its floor was read by the chain (see `walked`). */
  covered?: number;
  /** Local epoch ms when the chain's last finished walk began. */
  through?: number;
  running?: Walk;
  /** What the chain read that no item owned then, by ref. */
  unowned: Map<string, Listed>;
}

/** A chain's first page is small (a walk that only catches up reads a few); the legacy API's pages are judged full by their size, so they stay at 50. */
const FIRST_PAGE = 10;

/**
 * A target's lists of the texts whose creates were lost, each read as a chain of walks, newest first: a
 * walk reads back only to where the last one began (less the lookup's margin), and keeps what no item owned
 * as it read it. A conversation a walk missed because it moved to the front while the walk ran (it was
 * updated) is listed after the walk began, so the next walk reads it; one older than where a walk stops
 * was not updated since the walk before began, which read it. So a chain has read every conversation of
 * its list updated since its floor, and the lookups after lost creates of one text share its walks instead
 * of each reading the whole window's conversations of that text again, as does the end-of-run check.
 */
export class LandingWatch {
  private readonly chains = new Map<string, Chain>();

  constructor(
    private readonly client: DeepSearchClient,
    private readonly clock: ServerClock,
    private readonly owned: ConversationSet,
  ) {}

  /**
   * Conversations no item owns, newest first, listed since the floor of a send of `text` made at local epoch
   * ms `sentLocal`, once a walk begun at or after `notBefore` (when the send can no longer land) ended.
   */
  async unowned(text: string, sentLocal: number, notBefore: number, signal: AbortSignal): Promise<Listed[]> {
    const chain = this.chainOf(text);
    await this.walked(chain, sentLocal, notBefore, signal);
    const floor = walkFloor(this.clock, sentLocal);
    const found: Listed[] = [];
    for (const [ref, listed] of chain.unowned) {
      if (this.owned.has(ref)) chain.unowned.delete(ref);
      else if (floor === undefined || !(listed.orderMs < floor)) found.push(listed);
    }
    return found.sort((a, b) => b.orderMs - a.orderMs);
  }

  /**
   * Walks each list of `texts` once more, now, back to each text's earliest send (local epoch ms), then (listed
   * by last update) once again to catch up, and gives every conversation no item owns that any chain read,
   * whatever its text: the end-of-run check.
   */
  async unownedNow(texts: ReadonlyMap<string, number>, signal: AbortSignal): Promise<Listed[]> {
    const needs = new Map<Chain, number>();
    for (const [text, sentLocal] of texts) {
      const chain = this.chainOf(text);
      needs.set(chain, Math.min(needs.get(chain) ?? Infinity, sentLocal));
    }
    // At once: one after another they made a long tail after the run's last item.
    const walkAll = (notBefore: number) => Promise.all([...needs].map(([chain, need]) => this.walked(chain, need, notBefore, signal)));
    await walkAll(Date.now());
    // Listed by last update, a conversation updated while that walk ran (a late landing being answered) moved
    // ahead of it; no later walk would read it: one more catch-up walk does (usually its first page).
    if (this.client.api === 'versioned') await walkAll(Date.now());
    const found = new Map<string, Listed>();
    for (const chain of this.chains.values()) {
      for (const [ref, listed] of chain.unowned) if (!this.owned.has(ref)) found.set(ref, listed);
    }
    return [...found.values()];
  }

  private chainOf(text: string): Chain {
    const query = this.client.api === 'versioned' ? text.slice(0, 200) : undefined;
    const key = query ?? '';
    let chain = this.chains.get(key);
    if (!chain) this.chains.set(key, (chain = { query, unowned: new Map() }));
    return chain;
  }

  /** Resolves once a walk of `chain` begun at or after `notBefore` ended, the chain covering back to `need`. */
  private async walked(chain: Chain, need: number, notBefore: number, signal: AbortSignal): Promise<void> {
    if (notBefore > Date.now()) await abortable(sleep(notBefore - Date.now()), signal);
    for (;;) {
      const running = chain.running;
      if (!running) {
        if (chain.through !== undefined && chain.through >= notBefore && covers(chain.covered, need)) return;
        this.start(chain, need, signal);
        continue;
      }
      const serves = running.startedAt >= notBefore && covers(running.covers, need);
      try {
        await abortable(running.done, signal);
        if (serves) return;
      } catch (error) {
        // Another item's walk ended with its item (its time up): walk again, in this one's time.
        if (running.signal === signal || signal.aborted || !running.signal.aborted) throw error;
      }
    }
  }

  private start(chain: Chain, need: number, signal: AbortSignal): void {
    const startedAt = Date.now();
    // Caught up from where the last walk began, unless the chain does not reach back to this send yet.
    const catchUp = chain.through !== undefined && covers(chain.covered, need);
    const covered = catchUp ? (chain.covered as number) : need;
    const options = {
      sentLocal: catchUp ? (chain.through as number) : need,
      contentQuery: chain.query,
      skip: this.owned,
      signal,
      firstPageSize: FIRST_PAGE,
      pageSize: this.client.api === 'versioned' ? 100 : 50,
    };
    const done = (async () => {
      for await (const listed of summariesSince(this.client, this.clock, options, { read: 0, looked: 0, since: undefined })) {
        chain.unowned.set(listed.summary.ref, listed);
      }
      chain.covered = covered;
      chain.through = startedAt;
    })().finally(() => {
      chain.running = undefined;
    });
    // Its failure reaches whoever waits for it.
    done.catch(() => undefined);
    chain.running = { startedAt, covers: covered, signal, done };
  }
}

/** Whether a chain covering back to a send at `covered` covers one at `need`: a send of unknown time (NaN) is walked back through every page. */
function covers(covered: number | undefined, need: number): boolean {
  return covered !== undefined && (Number.isNaN(covered) || covered <= need);
}

/** `promise`, or an AbortedError once `signal` aborts first. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new AbortedError('aborted while looking for a lost send'));
  return new Promise<T>((resolve, reject) => {
    const aborted = () => reject(new AbortedError('aborted while looking for a lost send'));
    signal.addEventListener('abort', aborted, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', aborted);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', aborted);
        reject(error);
      },
    );
  });
}
