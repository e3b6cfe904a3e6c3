// The walks that look for late landings of lost creates: a chain of walks per list reads back only to where
// its last walk began, lookups at once share a walk, and a conversation moved to the front while a walk ran
// is read by the next one.
import { afterEach, describe, expect, it } from 'vitest';
import { LandingWatch } from '../../src/runner/landing-watch.js';
import { ServerClock } from '../../src/runner/server-clock.js';
import type { DeepSearchClient } from '../../src/deepsearch/client.js';
import { APIS, client, closeAll, emulator, FAST, op, settle } from '../helpers/emulator.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';

const proxies: FaultProxy[] = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
  await closeAll();
});

const TEXT = 'Where is retryPolicy implemented?';
const never = new AbortController().signal;

/** Creates and answers `n` conversations of `text`; their refs. */
async function asked(c: DeepSearchClient, clock: ServerClock, n: number, text = TEXT): Promise<string[]> {
  const refs: string[] = [];
  for (let i = 0; i < n; i++) {
    const created = await c.create(text);
    clock.observe(created.serverDate);
    await settle(c, created.ref);
    refs.push(created.ref);
  }
  return refs;
}

describe.each(APIS)('LandingWatch (%s)', (api) => {
  it('reads back only to where the last walk began, keeps what no item owned, and shares a walk between lookups', async () => {
    const e = await emulator(FAST);
    const c = client(e, api);
    const clock = new ServerClock();
    const owned = new Set<string>();
    const watch = new LandingWatch(c, clock, owned);
    const sent = Date.now();
    for (const ref of await asked(c, clock, 30)) owned.add(ref);
    const [first] = await asked(c, clock, 1);
    const lists = () => e.counters()[op(api, 'list')] ?? 0;

    const before = lists();
    // Two lookups at once: one walk of 31 conversations (a page of 10, one of 50).
    const now = Date.now();
    const [a, b] = await Promise.all([watch.unowned(TEXT, sent, now, never), watch.unowned(TEXT, sent, now, never)]);
    expect(a.map((l) => l.summary.ref)).toEqual([first]);
    expect(b.map((l) => l.summary.ref)).toEqual([first]);
    expect(lists() - before).toBe(2);

    for (const ref of await asked(c, clock, 3)) owned.add(ref);
    const [second] = await asked(c, clock, 1);
    owned.add(first as string);
    const again = lists();
    // Catching up: the 4 conversations since the last walk began fit its first page.
    const found = await watch.unowned(TEXT, sent, Date.now(), never);
    expect(found.map((l) => l.summary.ref)).toEqual([second]);
    expect(lists() - again).toBe(1);

    // A walk that began before the lookup's window ended does not serve it: it walks again.
    const late = lists();
    await watch.unowned(TEXT, sent, Date.now(), never);
    expect(lists() - late).toBe(1);
    // One that began after it does.
    const served = lists();
    await watch.unowned(TEXT, sent, Date.now() - 60_000, never);
    expect(lists() - served).toBe(0);
  });

  it('walks back further for a send older than its chain reaches', async () => {
    const e = await emulator(FAST);
    const c = client(e, api);
    const clock = new ServerClock();
    const owned = new Set<string>();
    const watch = new LandingWatch(c, clock, owned);
    const early = Date.now();
    const [old] = await asked(c, clock, 1);
    // FAST runs 10,000 times real time: the lookup's 60 s margin is 6 ms.
    await new Promise((resolve) => setTimeout(resolve, 50));
    // A reply after the pause: the server's clock as known at the later send.
    clock.observe((await c.get(old as string)).serverDate);
    const late = Date.now();
    for (const ref of await asked(c, clock, 3)) owned.add(ref);
    expect(await watch.unowned(TEXT, late, Date.now(), never)).toEqual([]);
    const found = await watch.unowned(TEXT, early, Date.now(), never);
    expect(found.map((l) => l.summary.ref)).toEqual([old]);
  });
});

/**
 * A watch over a proxy that holds the first walk's second page a second, and one conversation of TEXT
 * (`moved`) among 15 the run owns; `held` resolves as that page is held, for the test to update `moved`.
 */
async function midWalk() {
  const e = await emulator(FAST);
  const direct = client(e, 'versioned');
  let second!: () => void;
  const held = new Promise<void>((resolve) => (second = resolve));
  let delayed = false;
  const proxy = await startFaultProxy(e.url, (req) => {
    if (req.operation !== op('versioned', 'list') || !req.body.includes('pageToken') || delayed) return { kind: 'forward' };
    delayed = true;
    second();
    return { kind: 'forward', delayMs: 1000 };
  });
  proxies.push(proxy);
  const clock = new ServerClock();
  const owned = new Set<string>();
  const watch = new LandingWatch(client(proxy.url, 'versioned'), clock, owned);
  const sent = Date.now();
  const [moved] = await asked(direct, clock, 1);
  for (const ref of await asked(direct, clock, 15)) owned.add(ref);
  // Updated while the walk waits for its second page: it is then newer than where the walk began.
  const update = async () => {
    await held;
    await direct.addQuestion(moved as string, 'Which callers use retryPolicy?');
  };
  return { watch, sent, moved, update };
}

describe('LandingWatch (versioned, listed by last update)', () => {
  it('reads in its next walk a conversation that moved to the front while a walk ran', async () => {
    const { watch, sent, moved, update } = await midWalk();
    const first = watch.unowned(TEXT, sent, Date.now(), never);
    await update();
    expect((await first).map((l) => l.summary.ref)).toEqual([]);
    expect((await watch.unowned(TEXT, sent, Date.now(), never)).map((l) => l.summary.ref)).toEqual([moved]);
  });

  it('at the end of the run, reads a conversation that moved to the front while the last walk ran', async () => {
    const { watch, sent, moved, update } = await midWalk();
    const check = watch.unownedNow(new Map([[TEXT, sent]]), never);
    await update();
    expect((await check).map((l) => l.summary.ref)).toEqual([moved]);
  });
});
