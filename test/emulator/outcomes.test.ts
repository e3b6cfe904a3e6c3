import { afterEach, describe, expect, it } from 'vitest';
import { FAST, START, ask, emulator, legacy, legacySettled, rpc, stopAll, tinySearch, versionedSettled } from './helpers.js';

afterEach(stopAll);

const create = (text: string) => ({ conversation: { questions: [{ input: [{ question: { text } }] }] } });

describe('agent outcomes', () => {
  const cases = [
    { trigger: '[[token-limit]]', kind: 'TokenLimitExceeded', code: 'ERROR_TOKEN_LIMIT_EXCEEDED', retry: false },
    { trigger: '[[internal-error]]', kind: 'InternalError', code: 'ERROR_INTERNAL', retry: false },
    { trigger: '[[quota-exceeded]]', kind: 'RateLimitExceeded', code: 'ERROR_QUOTA_EXCEEDED', retry: true },
    { trigger: '[[entitlement-exceeded]]', kind: 'RateLimitExceeded', code: 'ERROR_ENTITLEMENT_EXCEEDED', retry: true },
    { trigger: '[[rate-limited]]', kind: 'RateLimitExceeded', code: 'ERROR_QUOTA_EXCEEDED', retry: true },
  ];

  it.each(cases)('$trigger fails with $kind / $code', async ({ trigger, kind, code, retry }) => {
    const e = await emulator(FAST);
    const { id } = await ask(e, `Where is retryPolicy? ${trigger}`);
    const q = (await legacySettled(e, id)).json.questions[0];
    expect(q.status).toBe('completed');
    expect(q.error).toMatchObject({ kind, title: expect.any(String), message: expect.any(String), details: expect.any(String) });
    expect(q.answer).toBeUndefined();
    expect(q.suggested_followups).toBeNull();

    const created = await rpc(e, 'CreateConversation', create(`again ${trigger}`));
    const done = await versionedSettled(e, created.json.name);
    expect(done.status).toBe(200);
    expect(done.json.state.error.code).toBe(code);
    expect(done.json.state.error.message).toBeTruthy();
    expect('retryTime' in done.json.state.error).toBe(retry);
  });

  it('uses configurable trigger phrases and error rates', async () => {
    const e = await emulator({ ...FAST, agent: { triggers: { tokenLimit: 'TOO BIG' }, internalErrorRate: 1 } });
    const big = await ask(e, 'this is TOO BIG');
    expect((await legacySettled(e, big.id)).json.questions[0].error.kind).toBe('TokenLimitExceeded');
    const other = await ask(e, 'plain question');
    expect((await legacySettled(e, other.id)).json.questions[0].error.kind).toBe('InternalError');
  });

  it('turns a search that always fails into an internal error, and works around one failing query', async () => {
    const down = await emulator(FAST, { search: async () => Promise.reject(new Error('corpus down')) });
    const { id } = await ask(down, 'Where is retryPolicy?');
    expect((await legacySettled(down, id)).json.questions[0].error.kind).toBe('InternalError');

    const picky = await emulator(FAST, {
      search: (query) => (query.includes('undici') ? Promise.reject(new Error('syntax')) : tinySearch(query)),
    });
    const other = await ask(picky, 'Where is retryPolicy in undici?');
    const q = (await legacySettled(picky, other.id)).json.questions[0];
    expect(q.status).toBe('completed');
    expect(q.error).toBeUndefined();
    expect(q.stats.tool_calls).toBe(2);
    expect(q.sources).toHaveLength(2);
  });

  it('refuses new questions once the quota is used up', async () => {
    const e = await emulator({ ...FAST, quota: { limit: 2, resetTime: '2025-11-01T00:00:00Z' } }, { search: tinySearch });
    const first = await ask(e, 'Where is retryPolicy?');
    const answered = (await legacySettled(e, first.id)).json;
    const credits = answered.questions[0].stats.credits;
    expect(credits).toBeGreaterThanOrEqual(2);
    expect(answered.quota_usage).toEqual({ total_quota: credits, quota_limit: 2, reset_time: '2025-11-01T00:00:00Z' });

    const second = await ask(e, 'Where else?');
    const refused = (await legacySettled(e, second.id)).json;
    expect(refused.questions[0].error.kind).toBe('RateLimitExceeded');
    expect(refused.questions[0].error.details).toContain('2025-11-01T00:00:00Z');
    expect(refused.quota_usage.total_quota).toBe(credits);

    const viaVersioned = await rpc(e, 'CreateConversation', create('and now?'));
    expect(viaVersioned.status).toBe(200);
    const state = (await versionedSettled(e, viaVersioned.json.name)).json.state;
    expect(state).toEqual({ error: { code: 'ERROR_QUOTA_EXCEEDED', message: expect.any(String), retryTime: '2025-11-01T00:00:00Z' } });
    // Quota is per user.
    const alice = await ask(e, 'Where is retryPolicy?', 'sgp_emulator_alice_token');
    expect((await legacySettled(e, alice.id, 'sgp_emulator_alice_token')).json.questions[0].status).toBe('completed');
  });
});

describe('time and determinism', () => {
  it('reports virtual durations while running on a scaled clock', async () => {
    const e = await emulator({ timeScale: 0.0001, startTime: START, sigma: 0, medianMs: 120_000 });
    const realStart = Date.now();
    const { id } = await ask(e, 'slow question');
    const q = (await legacySettled(e, id)).json.questions[0];
    // Two emulated minutes pass in 12 real ms (plus the agent's first searches, a second or so on a busy machine).
    expect(Date.now() - realStart).toBeLessThan(60_000);
    expect(q.stats.time_millis).toBe(120_000);
    expect(Date.parse(q.updated_at) - Date.parse(q.created_at)).toBeGreaterThanOrEqual(119_000);
    expect(Date.parse(q.created_at)).toBeGreaterThanOrEqual(Date.parse(START));
    const [record] = e.questionRecords();
    expect(record!.endedAtVirtualMs! - record!.createdAtVirtualMs).toBe(120_000);
    expect(e.clock.toRealMs(120_000)).toBeCloseTo(12);
    expect(e.clock.toVirtualMs(12)).toBeCloseTo(120_000);
  });

  it('samples the same processing times for the same seed and questions', async () => {
    const questions = ['alpha', 'beta', 'alpha', 'gamma'];
    const sample = async (seed: number) => {
      const e = await emulator({ ...FAST, timeScale: 1, seed });
      for (const q of questions) await ask(e, q);
      return e.questionRecords().map((r) => r.processingMs);
    };
    const a = await sample(7);
    const b = await sample(7);
    const c = await sample(8);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(a[0]).not.toBe(a[2]);
    for (const ms of a) {
      expect(ms).toBeGreaterThanOrEqual(1_000);
      expect(ms).toBeLessThanOrEqual(300_000);
    }
  });

  it('clamps samples to the configured range', async () => {
    const e = await emulator({ ...FAST, timeScale: 1, medianMs: 10, sigma: 0 });
    await ask(e, 'short');
    expect(e.questionRecords()[0]!.processingMs).toBe(1_000);
  });

  it('records every question with its outcome', async () => {
    const e = await emulator(FAST);
    const { id } = await ask(e, 'one');
    await legacySettled(e, id);
    await legacy(e, 'POST', `/${id}/questions`, { conversation_id: id, question: 'two [[token-limit]]' });
    await legacySettled(e, id);
    expect(e.questionRecords().map((r) => [r.conversationId, r.questionIndex, r.text, r.outcome])).toEqual([
      [id, 0, 'one', 'completed'],
      [id, 1, 'two [[token-limit]]', 'token-limit'],
    ]);
  });
});
