// Every operation of both Deep Search clients against the emulator: create, get, follow-up, cancel,
// delete, list (every option of each flavour) and, on the legacy API, reading by read token.
import { afterEach, describe, expect, it } from 'vitest';
import { HttpStatusError, UsageError } from '../../src/errors/errors.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { DeepSearchClient, ListOptions } from '../../src/deepsearch/index.js';
import {
  ALICE,
  APIS,
  FAST,
  PACED,
  SLOW,
  START,
  askAndSettle,
  client,
  closeAll,
  collect,
  emulator,
  failure,
  legacyClient,
  op,
  settle,
} from '../helpers/emulator.js';

afterEach(closeAll);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(APIS)('%s client: conversation life cycle', (api) => {
  it("reads the server's clock from each reply's Date header: the emulator's virtual clock", async () => {
    // SLOW runs at real speed from START (2025), so its clock stays within seconds of START.
    const e = await emulator(SLOW);
    const created = await client(e, api).create('Where is retryPolicy defined?');
    expect(Math.abs(Date.parse(created.serverDate!) - Date.parse(START))).toBeLessThan(60_000);
  });

  it('creates a processing conversation that completes with an answer, and gets it', async () => {
    const e = await emulator(FAST);
    const c = client(e, api);
    const created = await c.create('Where is retryPolicy defined?');
    expect(created).toMatchObject({ api, state: 'processing' });
    expect(created.questions).toHaveLength(1);
    expect(created.questions[0]).toMatchObject({ index: 0, text: 'Where is retryPolicy defined?', state: 'processing' });
    expect(created.questions[0]!.answer).toBeUndefined();

    const { conversation, question, polls } = await settle(c, created.ref);
    expect(polls).toBeGreaterThanOrEqual(1);
    expect(conversation.ref).toBe(created.ref);
    expect(conversation.state).toBe('completed');
    expect(question).toMatchObject({ index: 0, state: 'completed', rawState: 'completed' });
    expect(question!.error).toBeUndefined();
    expect(question!.title).toBeTruthy();
    expect(conversation.title).toBe(question!.title);
    expect(question!.answer).toContain(`](${e.url}/r/github.com/org/repo/-/blob/src/retryPolicy.ts?L10)`);

    if (api === 'legacy') {
      expect(created.ref).toMatch(/^\d+$/);
      expect(created.questions[0]!.id).toMatch(/^\d+$/);
      // Stats are present from the start on the legacy API, all zero while processing.
      expect(Object.values(created.questions[0]!.stats!).every((v) => v === 0)).toBe(true);
      expect(created.viewerIsOwner).toBeUndefined();
      expect(created.quotaUsage).toBeUndefined();
      expect(question!.sources).toEqual([
        { type: 'Repository', link: '/github.com/org/repo', label: 'github.com/org/repo' },
        { type: 'Repository', link: '/github.com/org/other', label: 'github.com/org/other' },
      ]);
      expect(question!.suggestedFollowups).toHaveLength(2);
      expect(question!.stats!.totalTokens).toBeGreaterThan(0);
      expect(question!.stats!.toolCalls).toBeGreaterThan(0);
      expect(question!.stats!.credits).toBeGreaterThan(0);
      expect(conversation).toMatchObject({ userId: 1, viewerIsOwner: true });
      expect(conversation.quotaUsage).toEqual({ totalQuota: question!.stats!.credits, quotaLimit: -1, resetTime: '2025-10-01T00:00:00Z' });
      expect(conversation.readToken).toMatch(UUID);
      expect(conversation.shareUrl).toBe(`${e.url}/deepsearch/${conversation.readToken}`);
    } else {
      // Named by the numeric user id, though the create said users/~self, as real servers do.
      expect(created.ref).toMatch(/^users\/1\/conversations\/\d+$/);
      // The versioned API has no stats, sources, follow-ups, quota or read tokens: absent, not zero.
      for (const q of [created.questions[0]!, question!]) {
        expect(q).not.toHaveProperty('stats');
        expect(q).not.toHaveProperty('sources');
        expect(q).not.toHaveProperty('suggestedFollowups');
        expect(q).not.toHaveProperty('id');
      }
      for (const key of ['quotaUsage', 'readToken', 'viewerIsOwner', 'userId', 'url']) {
        expect(conversation).not.toHaveProperty(key);
      }
      // `url` is the share URL: kept as the secret it is.
      expect(conversation.shareUrl).toMatch(new RegExp(`^${e.url}/deepsearch/[0-9a-f-]{36}$`));
    }

    const got = await c.get(created.ref);
    // The same conversation, read at another moment of the server's clock.
    expect({ ...got, serverDate: undefined }).toEqual({ ...conversation, serverDate: undefined });
    if (api === 'versioned') {
      // A bare number names the caller's own conversation.
      expect((await c.get(created.ref.split('/').pop()!)).ref).toBe(created.ref);
    }
  });

  it('adds follow-up questions: back to processing, then completed, each at its index', async () => {
    const e = await emulator(PACED);
    const c = client(e, api);
    const created = await c.create('Where is retryPolicy defined?');
    await settle(c, created.ref, 0);

    const added = await c.addQuestion(created.ref, 'Which callers use retryPolicy?');
    expect(added).toMatchObject({ text: 'Which callers use retryPolicy?', state: 'processing' });
    expect(added).not.toHaveProperty('index');
    if (api === 'legacy') expect(Number(added.id)).toBeGreaterThan(Number(created.questions[0]!.id));

    const during = await c.get(created.ref);
    expect(during.state).toBe('processing');
    expect(during.questions.map((q) => [q.index, q.state])).toEqual([
      [0, 'completed'],
      [1, 'processing'],
    ]);

    const { conversation, question } = await settle(c, created.ref, 1);
    expect(conversation.state).toBe('completed');
    expect(question).toMatchObject({ index: 1, text: 'Which callers use retryPolicy?', state: 'completed' });
    expect(question!.answer).toContain('retryPolicy');
    // Legacy questions carry their own titles. The versioned API titles only the conversation (after
    // its first answer, here), so once there are several questions none of them claims that title.
    expect(conversation.title).toBe(api === 'legacy' ? 'Which callers use retryPolicy' : 'Where is retryPolicy defined');
    expect(conversation.questions.map((q) => q.title)).toEqual(
      api === 'legacy' ? ['Where is retryPolicy defined', 'Which callers use retryPolicy'] : [undefined, undefined],
    );

    // A second follow-up lands at index 2.
    await c.addQuestion(created.ref, 'And where is it tested?');
    const third = await settle(c, created.ref, 2);
    expect(third.conversation.questions.map((q) => q.index)).toEqual([0, 1, 2]);
    expect(e.questionRecords().map((r) => r.questionIndex)).toEqual([0, 1, 2]);
  });

  it('keeps the conversation\'s title when a follow-up fails; the failed question has none', async () => {
    const e = await emulator(FAST);
    const c = client(e, api);
    const { created, question: first } = await askAndSettle(c, 'Where is retryPolicy defined?');
    await c.addQuestion(created.ref, 'And then? [[internal-error]]');
    const { conversation, question } = await settle(c, created.ref, 1);
    expect(conversation.state).toBe('error');
    expect(question!.title).toBeUndefined();
    expect(conversation.title).toBe(first.title);
    expect((await collect(c.list()))[0]).toMatchObject({ ref: created.ref, title: first.title });
  });

  it('refuses a follow-up while a question is processing (HTTP error, usage exit code)', async () => {
    const e = await emulator(SLOW);
    const c = client(e, api);
    const created = await c.create('Where is retryPolicy defined?');
    const error = await failure(c.addQuestion(created.ref, 'Too early'));
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(api === 'legacy' ? 409 : 400);
    expect(error.exitCode).toBe(ExitCode.usage);
    expect(error.message).toContain('still processing');
  });

  it('cancels a processing question: state canceled with error code CANCELED', async () => {
    const e = await emulator(SLOW);
    const c = client(e, api);
    const created = await c.create('Where is retryPolicy defined?');
    await c.cancel(created.ref);
    const conversation = await c.get(created.ref);
    expect(conversation.state).toBe('canceled');
    expect(conversation.questions[0]).toMatchObject({
      state: 'canceled',
      error: { code: 'CANCELED', rawCode: api === 'legacy' ? 'Cancelled' : 'canceled' },
    });
    if (api === 'legacy') expect(conversation.questions[0]!.rawState).toBe('completed');
    expect(e.counters()[op(api, 'cancel')]).toBe(1);
    expect(e.questionRecords()[0]!.outcome).toBe('cancelled');
    // A follow-up is accepted after a cancelled question. The versioned API has one state per
    // conversation, so an earlier question can only be read as ended ('completed').
    await c.addQuestion(created.ref, 'Then where is it tested?');
    const states = (await c.get(created.ref)).questions.map((q) => q.state);
    expect(states).toEqual([api === 'legacy' ? 'canceled' : 'completed', 'processing']);
  });

  it('leaves a finished conversation as it is when cancelled', async () => {
    const e = await emulator(FAST);
    const c = client(e, api);
    const { created } = await askAndSettle(c, 'Where is retryPolicy defined?');
    await c.cancel(created.ref);
    expect((await c.get(created.ref)).state).toBe('completed');
  });

  it('deletes a conversation; getting it afterwards is a 404 with the usage exit code', async () => {
    const e = await emulator(FAST);
    const c = client(e, api);
    const created = await c.create('Where is retryPolicy defined?');
    await c.delete(created.ref);
    const error = await failure(c.get(created.ref));
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(404);
    expect(error.exitCode).toBe(ExitCode.usage);
    expect(error.message).toContain('not found');
    expect(await collect(c.list())).toEqual([]);
    expect((await failure(c.delete(created.ref))).exitCode).toBe(ExitCode.usage);
  });
});

describe('legacy client: cancel by question id', () => {
  it('cancels the named question', async () => {
    const e = await emulator(SLOW);
    const c = client(e, 'legacy');
    const created = await c.create('Where is retryPolicy defined?');
    const qid = created.questions[0]!.id!;
    await c.cancel(created.ref, qid);
    expect((await c.get(created.ref)).questions[0]!.state).toBe('canceled');
    // The client did not need to look the question up first.
    expect(e.counters()['legacy.get']).toBe(1);
  });

  it('refuses a versioned resource name', async () => {
    const e = await emulator(FAST);
    const error = await failure(client(e, 'legacy').get('users/~self/conversations/140'));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toContain('not a legacy conversation id');
    expect(e.counters()['legacy.get']).toBe(0);
  });
});

/** Five conversations; the oldest gets a follow-up so updated_at and created_at orders differ. */
async function fiveConversations(c: DeepSearchClient): Promise<string[]> {
  const refs: string[] = [];
  for (const word of ['alpha', 'bravo', 'charlie', 'delta', 'echo']) {
    refs.push((await askAndSettle(c, `Where is ${word}Handler defined?`)).created.ref);
  }
  await c.addQuestion(refs[0]!, 'And who calls alphaHandler?');
  await settle(c, refs[0]!, 1);
  return refs;
}

describe('legacy client: list', () => {
  it('walks every page without duplicates in each of the six sorts', async () => {
    const e = await emulator(FAST);
    const c = client(e, 'legacy');
    const refs = await fiveConversations(c);
    const [first, ...rest] = refs;
    const byId = [...refs].sort((a, b) => Number(a) - Number(b));
    const expected: Record<string, string[]> = {
      id: byId,
      '-id': [...byId].reverse(),
      created_at: refs,
      '-created_at': [...refs].reverse(),
      updated_at: [...rest, first!],
      '-updated_at': [first!, ...[...rest].reverse()],
    };
    for (const [sort, order] of Object.entries(expected)) {
      const before = e.counters()['legacy.list']!;
      const listed = await collect(c.list({ sort, pageSize: 2 }));
      expect(listed.map((s) => s.ref), sort).toEqual(order);
      // 2 + 2 + 1: three pages.
      expect(e.counters()['legacy.list']! - before, sort).toBe(3);
    }
    // Without a sort the client asks for -id: ids never change, so paging is stable.
    expect((await collect(c.list({ pageSize: 2 }))).map((s) => s.ref)).toEqual(expected['-id']);
    const summary = (await collect(c.list({ id: first! })))[0]!;
    expect(summary).toMatchObject({ ref: first, state: 'completed', userId: 1 });
    expect(summary.title).toBeTruthy();
  });

  it('lists every conversation once when one is updated between pages, ending on an empty page', async () => {
    // Paging by the server's default -updated_at skipped the conversation updated between two pages
    // (it moved ahead of the cursor); the client's default -id does not.
    const e = await emulator(FAST);
    const c = client(e, 'legacy');
    const refs: string[] = [];
    for (let i = 0; i < 4; i++) refs.push((await askAndSettle(c, `Where is handler${i}?`)).created.ref);
    const listed: string[] = [];
    for await (const summary of c.list({ pageSize: 2 })) {
      listed.push(summary.ref);
      if (listed.length === 2) await c.addQuestion(refs[0]!, 'And who calls it?');
    }
    expect(listed).toEqual([...refs].reverse());
    // 2 + 2 + an empty page.
    expect(e.counters()['legacy.list']).toBe(3);
  });

  it('filters by id, user id, read token and starred', async () => {
    const e = await emulator(FAST);
    const c = legacyClient(e);
    const refs = await fiveConversations(c);
    const target = await c.get(refs[2]!);
    const only = async (options: ListOptions) => (await collect(c.list(options))).map((s) => s.ref);
    expect(await only({ id: refs[2]! })).toEqual([refs[2]]);
    expect(await only({ id: '99999' })).toEqual([]);
    expect((await only({ userId: 1 })).sort()).toEqual([...refs].sort());
    expect(await only({ userId: 2 })).toEqual([]);
    expect(await only({ readToken: target.readToken! })).toEqual([refs[2]]);
    // The emulator has no way to star a conversation: none is starred.
    expect(await only({ starred: true })).toEqual([]);
    expect((await only({ starred: false })).sort()).toEqual([...refs].sort());
    // Alice's conversations are not listed for admin.
    const alice = client(e, 'legacy', ALICE);
    await alice.create('Where is aliceHandler?');
    expect((await only({})).length).toBe(5);
  });

  it('rejects the versioned-only content query and an unknown sort as usage errors', async () => {
    const e = await emulator(FAST);
    const c = client(e, 'legacy');
    for (const options of [{ contentQuery: 'retry' }, { sort: 'title' }]) {
      const error = await failure(collect(c.list(options)));
      expect(error).toBeInstanceOf(UsageError);
      expect(error.exitCode).toBe(ExitCode.usage);
    }
    expect(e.counters()['legacy.list']).toBe(0);
  });
});

describe('versioned client: list', () => {
  it('walks every page through the page token, newest update first, without duplicates', async () => {
    const e = await emulator(FAST);
    const c = client(e, 'versioned');
    const refs = await fiveConversations(c);
    const [first, ...rest] = refs;
    const listed = await collect(c.list({ pageSize: 2 }));
    expect(listed.map((s) => s.ref)).toEqual([first, ...[...rest].reverse()]);
    expect(e.counters()['versioned.ListConversationSummaries']).toBe(3);
    for (const summary of listed) {
      expect(summary.title).toBeTruthy();
      // A summary's url is the share URL: not read at all.
      expect(summary).not.toHaveProperty('url');
      expect(summary).not.toHaveProperty('userId');
    }
    // One page holds them all with the default page size.
    expect(await collect(c.list())).toHaveLength(5);
  });

  it('filters by content query and by starred', async () => {
    const e = await emulator(FAST);
    const c = client(e, 'versioned');
    const refs = await fiveConversations(c);
    expect((await collect(c.list({ contentQuery: 'CHARLIEhandler' }))).map((s) => s.ref)).toEqual([refs[2]]);
    // Follow-up text is searched too.
    expect((await collect(c.list({ contentQuery: 'who calls' }))).map((s) => s.ref)).toEqual([refs[0]]);
    expect(await collect(c.list({ contentQuery: 'nothing like this' }))).toEqual([]);
    expect(await collect(c.list({ starred: true }))).toEqual([]);
    expect(await collect(c.list({ starred: false, pageSize: 1 }))).toHaveLength(5);
  });

  it.each([
    ['sort', { sort: 'id' }],
    ['id', { id: '140' }],
    ['user id', { userId: 1 }],
    ['read token', { readToken: '0b6e9099-82cf-4ecd-a05f-8bef90e884df' }],
  ] as const)('rejects the legacy-only option %s as a usage error', async (name, options) => {
    const e = await emulator(FAST);
    const error = await failure(collect(client(e, 'versioned').list(options)));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toContain(`cannot list by ${name}`);
    expect(error.message).not.toContain('0b6e9099');
    expect(e.counters()['versioned.ListConversationSummaries']).toBe(0);
  });
});

describe('legacy client: reading by read token', () => {
  it('reads the own conversation and, with sharing on, another user\'s as a non-owner', async () => {
    const e = await emulator(FAST);
    const admin = legacyClient(e);
    const own = (await askAndSettle(admin, 'Where is retryPolicy defined?')).conversation;
    const byToken = await admin.getByReadToken(own.readToken!);
    expect(byToken).toMatchObject({ ref: own.ref, viewerIsOwner: true, userId: 1 });

    const alice = legacyClient(e, ALICE);
    const hers = (await askAndSettle(alice, 'Where is aliceHandler defined?')).conversation;
    expect(hers.viewerIsOwner).toBe(true);
    const shared = await admin.getByReadToken(hers.readToken!);
    expect(shared).toMatchObject({ ref: hers.ref, userId: 2, viewerIsOwner: false, state: 'completed' });
    expect(shared.questions[0]!.answer).toBe(hers.questions[0]!.answer);
    // Sharing is read-only: the conversation is still not admin's to get by id.
    expect((await failure(admin.get(hers.ref))).message).toContain('not found');
  });

  it('with sharing off, another user\'s read token finds nothing: a usage error without the token', async () => {
    const e = await emulator({ ...FAST, sharingEnabled: false });
    const alice = legacyClient(e, ALICE);
    const hers = (await askAndSettle(alice, 'Where is aliceHandler defined?')).conversation;
    const error = await failure(legacyClient(e).getByReadToken(hers.readToken!));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toContain('sharing is disabled');
    expect(error.message).not.toContain(hers.readToken!);
    // The owner still reads it by its token.
    expect((await alice.getByReadToken(hers.readToken!)).viewerIsOwner).toBe(true);
  });
});

describe.each(APIS)('%s client: a smaller first page', (api) => {
  it('asks for firstPageSize first and pageSize after it, and still walks every conversation once', async () => {
    const e = await emulator(FAST);
    const c = client(e, api);
    const refs = await fiveConversations(c);
    const before = e.counters()[op(api, 'list')] ?? 0;
    const listed = await collect(c.list({ firstPageSize: 1, pageSize: 3 }));
    expect(new Set(listed.map((s) => s.ref))).toEqual(new Set(refs));
    expect(listed).toHaveLength(5);
    // 1 + 3 + 1: three pages (pages of 3 alone would take two).
    expect((e.counters()[op(api, 'list')] ?? 0) - before).toBe(3);
  });
});
