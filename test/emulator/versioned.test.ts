import { afterEach, describe, expect, it } from 'vitest';
import {
  ListConversationSummariesResponseSchema,
  VersionedConversationSchema,
  VersionedQuestionSchema,
} from '../../src/emulator/index.js';
import {
  ALICE,
  FAST,
  READONLY,
  SLOW,
  ask,
  emulator,
  legacy,
  legacySettled,
  rpc,
  stopAll,
  tinySearch,
  versionedSettled,
} from './helpers.js';

afterEach(stopAll);

const create = (text: string) => ({
  parent: 'users/~self',
  conversation: { questions: [{ input: [{ question: { text } }] }] },
});

describe('versioned API: conversation life cycle', () => {
  it('creates, answers, follows up and deletes', async () => {
    const e = await emulator(FAST, { search: tinySearch });
    const created = await rpc(e, 'CreateConversation', create('Where is retryPolicy?'));
    expect(created.status).toBe(200);
    const conversation = VersionedConversationSchema.parse(created.json);
    expect(conversation.state).toEqual({ processing: {} });
    expect(conversation.name).toMatch(/^users\/1\/conversations\/\d+$/);
    expect(conversation.title).toBeUndefined();
    expect(conversation.questions[0]!.answer).toBeUndefined();
    expect(created.json).not.toHaveProperty('read_token');
    expect(created.json).not.toHaveProperty('stats');

    const done = VersionedConversationSchema.parse((await versionedSettled(e, conversation.name)).json);
    expect(done.state).toEqual({ completed: {} });
    expect(done.title).toBeTruthy();
    expect(done.questions[0]!.answer![0]!.markdown.text).toContain('/r/github.com/org/repo/-/blob/src/retry.ts?L10');
    expect(Date.parse(done.updateTime)).toBeGreaterThan(Date.parse(done.createTime));

    const added = await rpc(e, 'AddConversationQuestion', {
      parent: conversation.name,
      question: { input: [{ question: { text: 'And then?' } }] },
    });
    expect(added.status).toBe(200);
    expect(VersionedQuestionSchema.parse(added.json).input).toEqual([{ question: { text: 'And then?' } }]);
    expect(added.json.answer).toBeUndefined();
    expect((await versionedSettled(e, conversation.name)).json.questions).toHaveLength(2);

    const deleted = await rpc(e, 'DeleteConversation', { name: conversation.name });
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({});
    const gone = await rpc(e, 'GetConversation', { name: conversation.name });
    expect(gone.status).toBe(404);
    expect(gone.json.code).toBe('not_found');
  });

  it('refuses a follow-up while processing, and goes back to processing after one', async () => {
    const e = await emulator(SLOW);
    const { name } = (await rpc(e, 'CreateConversation', create('long'))).json;
    const followUp = { parent: name, question: { input: [{ question: { text: 'next' } }] } };
    const busy = await rpc(e, 'AddConversationQuestion', followUp);
    expect(busy.status).toBe(400);
    expect(busy.json.code).toBe('failed_precondition');
    await rpc(e, 'CancelConversation', { name });
    expect((await rpc(e, 'AddConversationQuestion', followUp)).status).toBe(200);
    expect((await rpc(e, 'GetConversation', { name })).json.state).toEqual({ processing: {} });
  });

  it('cancels a processing conversation', async () => {
    const e = await emulator(SLOW);
    const { name } = (await rpc(e, 'CreateConversation', create('long'))).json;
    const cancelled = await rpc(e, 'CancelConversation', { name });
    expect(cancelled.status).toBe(200);
    expect(VersionedConversationSchema.parse(cancelled.json).state).toEqual({ canceled: {} });
    const id = Number(name.split('/').pop());
    expect((await legacy(e, 'GET', `/${id}`)).json.questions[0].error.kind).toBe('Cancelled');
  });

  it('shares conversations with the legacy API', async () => {
    const e = await emulator(FAST);
    const { id } = await ask(e, 'asked via legacy');
    await legacySettled(e, id);
    const viaVersioned = await rpc(e, 'GetConversation', { name: `users/~self/conversations/${id}` });
    expect(viaVersioned.json.questions[0].input[0].question.text).toBe('asked via legacy');
    const { name } = (await rpc(e, 'CreateConversation', create('asked via versioned'))).json;
    const legacyId = Number(name.split('/').pop());
    expect((await legacy(e, 'GET', `/${legacyId}`)).json.questions[0].question).toBe('asked via versioned');
    expect((await rpc(e, 'GetConversation', { name: `users/-/conversations/${id}` })).status).toBe(200);
  });

  it('accepts snake_case keys, drops unknown ones and validates', async () => {
    const e = await emulator(FAST);
    const ok = await rpc(e, 'CreateConversation', { ...create('hello'), client_hint: 'x' });
    expect(ok.status).toBe(200);
    const list = await rpc(e, 'ListConversationSummaries', { parent: 'users/~self', page_size: '1', extra: true });
    expect(list.status).toBe(200);
    expect(list.json.conversationSummaries).toHaveLength(1);

    const empty = await rpc(e, 'CreateConversation', create(''));
    expect(empty.status).toBe(400);
    expect(empty.json.code).toBe('invalid_argument');
    expect((await rpc(e, 'CreateConversation', create('x'.repeat(100_001)))).status).toBe(400);
    expect((await rpc(e, 'CreateConversation', {})).json.code).toBe('invalid_argument');
    expect((await rpc(e, 'GetConversation', { name: 'conversations/1' })).json.code).toBe('invalid_argument');
    expect((await rpc(e, 'GetConversation', { name: 'users/~self/conversations/99999' })).status).toBe(404);
    expect((await rpc(e, 'CreateConversation', { ...create('x'), parent: 'users/2' })).json.code).toBe('permission_denied');
  });

  it('keeps other users conversations out of reach', async () => {
    const e = await emulator(FAST);
    const { name } = (await rpc(e, 'CreateConversation', create('mine'))).json;
    expect((await rpc(e, 'GetConversation', { name }, ALICE)).status).toBe(404);
    expect((await rpc(e, 'DeleteConversation', { name }, ALICE)).status).toBe(404);
    expect((await rpc(e, 'ListConversationSummaries', {}, ALICE)).json).toEqual({});
  });
});

describe('versioned API: protocol', () => {
  it('answers 405 to other methods and 415 to other content types', async () => {
    const e = await emulator(FAST);
    const url = `${e.url}/api/deepsearch.v1.Service/GetConversation`;
    const get = await fetch(url, { headers: { Authorization: `token ${ALICE}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const text = await fetch(url, {
      method: 'POST',
      headers: { Authorization: `token ${ALICE}`, 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(text.status).toBe(415);
    expect(e.counters()['versioned.GetConversation']).toBe(2);
  });

  it('enforces scopes: reads need read or write, writes need write', async () => {
    const e = await emulator(FAST);
    const { name } = (await rpc(e, 'CreateConversation', create('admin question'))).json;
    const denied = await rpc(e, 'CreateConversation', create('nope'), READONLY);
    expect(denied.status).toBe(403);
    expect(denied.json).toEqual({ code: 'permission_denied', message: expect.stringContaining('externalapi:write') });
    for (const method of ['CancelConversation', 'DeleteConversation']) {
      expect((await rpc(e, method, { name }, READONLY)).status).toBe(403);
    }
    expect((await rpc(e, 'GetConversation', { name }, READONLY)).status).toBe(200);
    expect((await rpc(e, 'ListConversationSummaries', {}, READONLY)).json.conversationSummaries).toHaveLength(1);
    // The legacy API takes any valid token.
    expect((await legacy(e, 'GET', '', undefined, READONLY)).status).toBe(200);
  });

  it('lists summaries page by page with opaque tokens and filters', async () => {
    const e = await emulator(FAST);
    const names: string[] = [];
    for (let i = 0; i < 5; i++) names.push((await rpc(e, 'CreateConversation', create(`topic ${i % 2 ? 'alpha' : 'beta'} ${i}`))).json.name);
    for (const name of names) await versionedSettled(e, name);

    const seen: string[] = [];
    const updateTimes: number[] = [];
    let pageToken: string | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const page = await rpc(e, 'ListConversationSummaries', { parent: 'users/~self', pageSize: 2, pageToken });
      const body = ListConversationSummariesResponseSchema.parse(page.json);
      for (const summary of body.conversationSummaries ?? []) {
        seen.push(summary.name);
        updateTimes.push(Date.parse(summary.updateTime));
      }
      pageToken = body.nextPageToken;
      if (!pageToken) break;
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen)).toEqual(new Set(names));
    expect(updateTimes).toEqual([...updateTimes].sort((a, b) => b - a));

    const alpha = await rpc(e, 'ListConversationSummaries', { filters: [{ contentQuery: 'ALPHA' }] });
    expect(alpha.json.conversationSummaries).toHaveLength(2);
    expect(alpha.json.conversationSummaries[0]).toMatchObject({ title: expect.any(String), url: expect.stringContaining(e.url) });
    expect((await rpc(e, 'ListConversationSummaries', { filters: [{ starred: true }] })).json).toEqual({});
    expect((await rpc(e, 'ListConversationSummaries', { pageToken: 'garbage' })).json.code).toBe('invalid_argument');
  });
});

describe('versioned API: a listed summary', () => {
  it('follows its conversation: no title while it processes, then the title and the later update time once answered', async () => {
    // Each answer takes 400 ms of real time.
    const e = await emulator({ timeScale: 0.004, sigma: 0, medianMs: 100_000 }, { search: tinySearch });
    const { name } = VersionedConversationSchema.parse((await rpc(e, 'CreateConversation', create('Where is retryPolicy?'))).json);
    const listed = async () => ListConversationSummariesResponseSchema.parse((await rpc(e, 'ListConversationSummaries', { filters: [{ contentQuery: 'retryPolicy' }] })).json).conversationSummaries ?? [];
    const [processing] = await listed();
    expect(processing).toMatchObject({ name });
    expect(processing!.title).toBeUndefined();
    await versionedSettled(e, name);
    const [answered] = await listed();
    expect(answered!.title).toEqual(expect.any(String));
    expect(Date.parse(answered!.updateTime!)).toBeGreaterThan(Date.parse(processing!.updateTime!));
  });
});

describe('versioned API: a content query', () => {
  it('stays right after follow-ups, deletes and answers: each page only matches, in update order, each once', async () => {
    const e = await emulator(FAST, { search: tinySearch });
    const names: string[] = [];
    for (let i = 0; i < 6; i++) names.push((await rpc(e, 'CreateConversation', create(`topic ${i % 2 ? 'alpha' : 'beta'} ${i}`))).json.name);
    for (const name of names) await versionedSettled(e, name);
    const [b0, a1, , a3, b4, a5] = names as [string, string, string, string, string, string];
    // A follow-up adds a text to a conversation and moves it to the front; a delete takes one out.
    await rpc(e, 'AddConversationQuestion', { parent: b0, question: { input: [{ question: { text: 'And ALPHA too?' } }] } });
    await versionedSettled(e, b0);
    await rpc(e, 'DeleteConversation', { name: a3 });

    // Answers end in an order of their own (their durations vary), and the wire shows update times in whole
    // seconds while the list sorts on the server's finer clock: a page walk must hold exactly the chosen
    // conversations, newest first by the update times shown; within one second any order is right.
    const inUpdateOrder = async (walked: string[], ...chosen: string[]) => {
      expect([...walked].sort()).toEqual([...chosen].sort());
      const shown = await Promise.all(walked.map(async (name) => Date.parse((await rpc(e, 'GetConversation', { name })).json.updateTime)));
      expect(shown).toEqual([...shown].sort((a, b) => b - a));
    };
    const walk = async (contentQuery: string) => {
      const seen: string[] = [];
      let pageToken: string | undefined;
      for (let guard = 0; guard < 20; guard++) {
        const page = ListConversationSummariesResponseSchema.parse((await rpc(e, 'ListConversationSummaries', { pageSize: 1, pageToken, filters: [{ contentQuery }] })).json);
        seen.push(...(page.conversationSummaries ?? []).map((c) => c.name));
        pageToken = page.nextPageToken;
        if (!pageToken) return seen;
      }
      throw new Error('the pages never ended');
    };
    await inUpdateOrder(await walk('alpha'), b0, a5, a1);
    expect(await walk('and alpha')).toEqual([b0]);
    await inUpdateOrder(await walk('topic'), b0, a5, b4, names[2]!, a1);
    expect(await walk('TOPIC beta 4')).toEqual([b4]);
    // A later answer's update moves a conversation within its query's order.
    await rpc(e, 'AddConversationQuestion', { parent: a1, question: { input: [{ question: { text: 'More?' } }] } });
    await versionedSettled(e, a1);
    await inUpdateOrder(await walk('alpha'), a1, b0, a5);
    expect((await walk('alpha'))[0]).toBe(a1);
  });
});
