import { afterEach, describe, expect, it } from 'vitest';
import { LegacyConversationSchema, LegacyListSchema, LegacyQuestionSchema } from '../../src/emulator/index.js';
import {
  ADMIN,
  ALICE,
  FAST,
  SLOW,
  ask,
  emulator,
  legacy,
  legacySettled,
  stopAll,
  tinySearch,
} from './helpers.js';

afterEach(stopAll);

describe('legacy API: conversation life cycle', () => {
  it('creates a processing conversation that completes with an answer', async () => {
    const e = await emulator(FAST, { search: tinySearch });
    const created = await legacy(e, 'POST', '', { question: 'Where is retryPolicy defined?' });
    expect(created.status).toBe(202);
    const conversation = LegacyConversationSchema.parse(created.json);
    const [question] = conversation.questions;
    expect(question).toMatchObject({
      conversation_id: conversation.id,
      status: 'processing',
      suggested_followups: null,
      turns: [{ reasoning: 'Where is retryPolicy defined?', role: 'user' }],
    });
    expect(Object.values(question!.stats).every((v) => v === 0)).toBe(true);
    expect(conversation.viewer).toBeUndefined();
    expect(conversation.share_url).toBe(`${e.url}/deepsearch/${conversation.read_token}`);
    expect(conversation.user_id).toBe(1);

    const done = LegacyConversationSchema.parse((await legacySettled(e, conversation.id)).json);
    const answered = done.questions[0]!;
    expect(answered.status).toBe('completed');
    expect(answered.turns).toBeUndefined();
    expect(answered.title).toBeTruthy();
    expect(answered.answer).toContain(`](${e.url}/r/github.com/org/repo/-/blob/src/retry.ts?L10)`);
    expect(answered.sources).toEqual([
      { type: 'Repository', link: '/github.com/org/repo', label: 'github.com/org/repo' },
      { type: 'Repository', link: '/github.com/org/other', label: 'github.com/org/other' },
    ]);
    expect(answered.suggested_followups).toHaveLength(2);
    expect(done.viewer).toEqual({ is_owner: true });
    expect(done.quota_usage).toEqual({ total_quota: answered.stats.credits, quota_limit: -1, reset_time: '2025-10-01T00:00:00Z' });
    // Key order follows the documented example.
    expect(Object.keys(created.json)).toEqual(['id', 'questions', 'created_at', 'updated_at', 'user_id', 'read_token', 'share_url']);
    expect(Object.keys((await legacy(e, 'GET', `/${conversation.id}`)).json)).toEqual([
      'id', 'questions', 'created_at', 'updated_at', 'user_id', 'read_token', 'viewer', 'quota_usage', 'share_url',
    ]);
  });

  it('keeps stats that, like the platform\'s, are no sums of each other', async () => {
    const e = await emulator(FAST, { search: tinySearch });
    const { id } = await ask(e, 'Where is retryPolicy defined in undici?');
    const q = (await legacySettled(e, id)).json.questions[0];
    const s = q.stats;
    expect(s.total_input_tokens).not.toBe(s.prompt_tokens + s.cached_tokens + s.cache_creation_input_tokens);
    expect(s.total_tokens).not.toBe(s.total_input_tokens + s.completion_tokens);
    expect(s.tool_calls).toBe(2);
    expect(s.credits).toBeGreaterThanOrEqual(3);
    const [record] = e.questionRecords();
    expect(s.time_millis).toBe(record!.processingMs);
    expect(Date.parse(q.updated_at) - Date.parse(q.created_at)).toBeGreaterThanOrEqual(record!.processingMs - 1000);
  });

  it('answers that nothing was found when the search has no hits', async () => {
    const e = await emulator(FAST, { search: async () => [] });
    const { id } = await ask(e, 'Where is frobnicateWidget?');
    const q = (await legacySettled(e, id)).json.questions[0];
    expect(q.status).toBe('completed');
    expect(q.answer).toContain('found nothing');
    expect(q.sources).toEqual([]);
  });

  it('adds a follow-up, replying with the new question alone', async () => {
    const e = await emulator(FAST, { search: tinySearch });
    const { id } = await ask(e, 'first question');
    await legacySettled(e, id);
    const mismatch = await legacy(e, 'POST', `/${id}/questions`, { conversation_id: id + 1, question: 'x' });
    expect(mismatch.status).toBe(400);
    const followUp = await legacy(e, 'POST', `/${id}/questions`, { conversation_id: id, question: 'second question' });
    expect(followUp.status).toBe(202);
    const question = LegacyQuestionSchema.parse(followUp.json);
    expect(question).toMatchObject({ conversation_id: id, status: 'processing', question: 'second question' });
    const after = (await legacySettled(e, id)).json;
    expect(after.questions.map((q: { id: number }) => q.id)).toEqual([question.id - 1, question.id]);
    expect(after.questions[1].answer).toBeTruthy();
  });

  it('replies to a follow-up with the whole conversation when legacy.followUpReply says so', async () => {
    const e = await emulator({ ...FAST, legacy: { followUpReply: 'conversation' } }, { search: tinySearch });
    const { id } = await ask(e, 'first question');
    await legacySettled(e, id);
    const followUp = await legacy(e, 'POST', `/${id}/questions`, { conversation_id: id, question: 'second question' });
    expect(followUp.status).toBe(202);
    const conversation = LegacyConversationSchema.parse(followUp.json);
    expect(conversation.id).toBe(id);
    expect(conversation.questions.map((q) => [q.question, q.status])).toEqual([
      ['first question', 'completed'],
      ['second question', 'processing'],
    ]);
  });

  it('refuses a follow-up while a question processes, and goes back to processing after one', async () => {
    const e = await emulator(SLOW);
    const { id, questions } = await ask(e, 'first question');
    const busy = await legacy(e, 'POST', `/${id}/questions`, { conversation_id: id, question: 'too early' });
    expect(busy.status).toBe(409);
    expect(busy.json.message).toMatch(/still processing/);
    await legacy(e, 'POST', `/${id}/questions/${questions[0].id}/cancel`);
    expect((await legacy(e, 'GET', `/${id}`)).json.viewer).toEqual({ is_owner: true });
    expect((await legacy(e, 'POST', `/${id}/questions`, { conversation_id: id, question: 'again' })).status).toBe(202);
    const during = (await legacy(e, 'GET', `/${id}`)).json;
    expect(during.questions.map((q: { status: string }) => q.status)).toEqual(['completed', 'processing']);
    expect(during.viewer).toBeUndefined();
  });

  it('cancels a processing question, which ends completed with kind Cancelled', async () => {
    const e = await emulator(SLOW);
    const conversation = await ask(e, 'a long question');
    const qid = conversation.questions[0].id;
    const cancelled = await legacy(e, 'POST', `/${conversation.id}/questions/${qid}/cancel`);
    expect(cancelled.status).toBe(200);
    const q = cancelled.json.questions[0];
    expect(q.status).toBe('completed');
    expect(q.error).toMatchObject({ kind: 'Cancelled' });
    expect(q.suggested_followups).toBeNull();
    expect(e.questionRecords()[0]!.outcome).toBe('cancelled');
    expect((await legacy(e, 'POST', `/${conversation.id}/questions/${qid + 999}/cancel`)).status).toBe(404);
  });

  it('deletes a conversation, then answers 404', async () => {
    const e = await emulator(FAST);
    const { id } = await ask(e, 'to be deleted');
    const deleted = await legacy(e, 'DELETE', `/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({});
    expect((await legacy(e, 'GET', `/${id}`)).status).toBe(404);
    expect((await legacy(e, 'DELETE', `/${id}`)).status).toBe(404);
    expect((await legacy(e, 'GET', '')).json).toEqual([]);
  });

  it('validates requests', async () => {
    const e = await emulator(FAST);
    const empty = await legacy(e, 'POST', '', { question: '  ' });
    expect(empty.status).toBe(400);
    expect(empty.json.message).toMatch(/empty/);
    expect((await legacy(e, 'POST', '', { question: 'x'.repeat(100_001) })).status).toBe(400);
    expect((await legacy(e, 'POST', '', { question: 'x'.repeat(100_000) })).status).toBe(202);
    expect((await legacy(e, 'POST', '', {})).status).toBe(400);
    expect((await legacy(e, 'GET', '/99999')).status).toBe(404);
    expect((await legacy(e, 'GET', '/abc')).status).toBe(400);
    const notJson = await fetch(`${e.url}/.api/deepsearch/v1`, {
      method: 'POST',
      headers: { Authorization: `token ${ADMIN}`, 'X-Requested-With': 't 1', 'Content-Type': 'application/json' },
      body: '{',
    });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toHaveProperty('message');
    expect((await legacy(e, 'PUT', '/1')).status).toBe(405);
  });

  it('requires X-Requested-With, answering 400 in plain text', async () => {
    const e = await emulator(FAST);
    const res = await fetch(`${e.url}/.api/deepsearch/v1`, { headers: { Authorization: `token ${ADMIN}` } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toMatch(/X-Requested-With.*\n$/);
  });
});

describe('legacy API: sharing', () => {
  it('lets another user read a conversation by its read token only', async () => {
    const e = await emulator(FAST);
    const { id, read_token } = await ask(e, 'shared question');
    await legacySettled(e, id);
    expect((await legacy(e, 'GET', `/${id}`, undefined, ALICE)).status).toBe(404);
    expect((await legacy(e, 'GET', '', undefined, ALICE)).json).toEqual([]);

    const byToken = await legacy(e, 'GET', `?filter_read_token=${read_token}`, undefined, ALICE);
    expect(byToken.status).toBe(200);
    expect(byToken.json).toHaveLength(1);
    expect(byToken.json[0]).toMatchObject({ id, user_id: 1, viewer: { is_owner: false } });
    expect((await legacy(e, 'DELETE', `/${id}`, undefined, ALICE)).status).toBe(404);
    const own = await legacy(e, 'GET', `?filter_read_token=${read_token}`);
    expect(own.json[0].viewer).toEqual({ is_owner: true });
  });

  it('hides other users conversations when sharing is disabled', async () => {
    const e = await emulator({ ...FAST, sharingEnabled: false });
    const { id, read_token } = await ask(e, 'private question');
    await legacySettled(e, id);
    expect((await legacy(e, 'GET', `?filter_read_token=${read_token}`, undefined, ALICE)).json).toEqual([]);
    expect((await legacy(e, 'GET', `?filter_read_token=${read_token}`)).json).toHaveLength(1);
  });
});

describe('legacy API: list', () => {
  const SORTS = ['id', '-id', 'created_at', '-created_at', 'updated_at', '-updated_at'];

  it('walks every page of every sort without duplicates', async () => {
    const e = await emulator(FAST);
    const ids: number[] = [];
    for (let i = 0; i < 7; i++) ids.push((await ask(e, `question ${i}`)).id);
    await ask(e, 'alice question', ALICE);
    for (const id of ids) await legacySettled(e, id);

    for (const sort of SORTS) {
      const seen: any[] = [];
      let after: number | undefined;
      for (let guard = 0; guard < 10; guard++) {
        const query = `?sort=${sort}&page_first=3${after === undefined ? '' : `&page_after=${after}`}`;
        const page = await legacy(e, 'GET', query);
        expect(page.status).toBe(200);
        LegacyListSchema.parse(page.json);
        seen.push(...page.json);
        if (page.json.length < 3) break;
        after = page.json[page.json.length - 1].id;
      }
      const seenIds = seen.map((c) => c.id);
      expect(new Set(seenIds).size).toBe(seenIds.length);
      expect([...seenIds].sort((a, b) => a - b)).toEqual(ids);
      const field = sort.replace('-', '');
      const keys = seen.map((c) => (field === 'id' ? c.id : Date.parse(c[field])));
      const ordered = [...keys].sort((a, b) => (sort.startsWith('-') ? b - a : a - b));
      expect(keys).toEqual(ordered);
    }
  });

  it('filters and validates its parameters', async () => {
    const e = await emulator(FAST);
    const a = await ask(e, 'a');
    await ask(e, 'b');
    expect((await legacy(e, 'GET', `?filter_id=${a.id}`)).json.map((c: { id: number }) => c.id)).toEqual([a.id]);
    expect((await legacy(e, 'GET', '?filter_user_id=1')).json).toHaveLength(2);
    expect((await legacy(e, 'GET', '?filter_user_id=2')).json).toEqual([]);
    expect((await legacy(e, 'GET', '?filter_is_starred=true')).json).toEqual([]);
    expect((await legacy(e, 'GET', '?filter_is_starred=false')).json).toHaveLength(2);
    expect((await legacy(e, 'GET', '?sort=-id')).json.map((c: { id: number }) => c.id)).toEqual([a.id + 1, a.id]);
    expect((await legacy(e, 'GET', '?sort=title')).status).toBe(400);
    expect((await legacy(e, 'GET', '?page_first=0')).status).toBe(400);
    expect((await legacy(e, 'GET', '?page_first=101')).status).toBe(400);
    expect((await legacy(e, 'GET', '?filter_is_starred=yes')).status).toBe(400);
    expect((await legacy(e, 'GET', '?sort=created_at&page_after=99999')).status).toBe(400);
  });
});
