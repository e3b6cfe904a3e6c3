import { afterEach, describe, expect, it } from 'vitest';
import { sendJson, startEmulator, type Route } from '../../src/emulator/index.js';
import { ADMIN, FAST, ask, emulator, legacy, rpc, stopAll } from './helpers.js';

afterEach(stopAll);

const create = (text: string) => ({ conversation: { questions: [{ input: [{ question: { text } }] }] } });

describe('authentication in the frontend', () => {
  it('answers plain text for a missing or unknown token, on both flavours', async () => {
    const e = await emulator(FAST);
    for (const path of ['/.api/deepsearch/v1', '/api/deepsearch.v1.Service/GetConversation']) {
      const missing = await fetch(`${e.url}${path}`, { method: 'POST', headers: { 'X-Requested-With': 't 1' } });
      expect(missing.status).toBe(401);
      expect(missing.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await missing.text()).toBe('Private mode requires authentication.\n');
      const unknown = await fetch(`${e.url}${path}`, {
        method: 'POST',
        headers: { Authorization: 'token sgp_nope', 'X-Requested-With': 't 1' },
      });
      expect(unknown.status).toBe(401);
      expect(await unknown.text()).toBe('Invalid access token.\n');
    }
    expect(e.counters()['legacy.create']).toBe(2);
    expect((await legacy(e, 'GET', '')).status).toBe(200);
    const bearer = await fetch(`${e.url}/.api/deepsearch/v1`, {
      headers: { Authorization: `Bearer ${ADMIN}`, 'X-Requested-With': 't 1' },
    });
    expect(bearer.status).toBe(200);
  });

  it('answers 404 in plain text for unknown paths', async () => {
    const e = await emulator(FAST);
    const res = await fetch(`${e.url}/nowhere`, { headers: { Authorization: `token ${ADMIN}` } });
    expect(res.status).toBe(404);
    expect(e.counters().unmatched).toBe(1);
  });
});

describe('transport faults', () => {
  it('injected 503 before the handler: nothing is created, and the retry is counted', async () => {
    const e = await emulator(FAST);
    e.injectFault({ operation: 'legacy.create', kind: '503' });
    const faulted = await legacy(e, 'POST', '', { question: 'q' });
    expect(faulted.status).toBe(503);
    expect(faulted.json).toHaveProperty('message');
    expect((await legacy(e, 'GET', '')).json).toEqual([]);
    expect((await legacy(e, 'POST', '', { question: 'q' })).status).toBe(202);
    expect(e.counters()['legacy.create']).toBe(2);
    expect(e.faultCounters()).toEqual({ 'legacy.create.503': 1 });
    expect(e.questionRecords()).toHaveLength(1);
  });

  it('renders 429 and 500 in each flavour, with Retry-After', async () => {
    const e = await emulator(FAST);
    e.injectFault({ operation: 'versioned.CreateConversation', kind: '429', retryAfterSeconds: 7 });
    e.injectFault({ operation: 'versioned.CreateConversation', kind: '500' });
    const limited = await rpc(e, 'CreateConversation', create('q'));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(limited.json.code).toBe('resource_exhausted');
    const broken = await rpc(e, 'CreateConversation', create('q'));
    expect(broken.status).toBe(500);
    expect(broken.json.code).toBe('internal');
    expect((await rpc(e, 'CreateConversation', create('q'))).status).toBe(200);
  });

  it('resets the connection before acting: nothing was created', async () => {
    const e = await emulator(FAST);
    e.injectFault({ operation: 'legacy.create', kind: 'reset' });
    await expect(legacy(e, 'POST', '', { question: 'q' })).rejects.toThrow();
    expect(e.questionRecords()).toHaveLength(0);
    expect(e.counters()['legacy.create']).toBe(1);
  });

  it('resets the connection after acting: the outcome is unknown to the client but real', async () => {
    const e = await emulator(FAST);
    e.injectFault({ operation: 'versioned.CreateConversation', kind: 'resetAfterAction' });
    await expect(rpc(e, 'CreateConversation', create('q'))).rejects.toThrow();
    expect(e.questionRecords()).toHaveLength(1);
    expect((await rpc(e, 'ListConversationSummaries', {})).json.conversationSummaries).toHaveLength(1);
  });

  it('serves an HTML proxy page and drops reply fields', async () => {
    const e = await emulator(FAST);
    e.injectFault({ operation: 'legacy.get', kind: 'proxy502' });
    e.injectFault({ operation: 'legacy.create', kind: 'dropField', field: 'id' });
    e.injectFault({ operation: 'versioned.GetConversation', kind: 'dropField', field: 'questions.0.input' });
    const created = await legacy(e, 'POST', '', { question: 'q' });
    expect(created.status).toBe(202);
    expect(created.json).not.toHaveProperty('id');
    expect(created.json.read_token).toBeTruthy();
    const proxy = await legacy(e, 'GET', '/140');
    expect(proxy.status).toBe(502);
    expect(proxy.headers.get('content-type')).toBe('text/html');
    expect(proxy.text).toContain('<title>502 Bad Gateway</title>');
    const got = await rpc(e, 'GetConversation', { name: 'users/~self/conversations/140' });
    expect(got.json.questions[0]).not.toHaveProperty('input');
    // Asked as users/~self, named by the numeric user id, as real servers answer.
    expect(got.json.name).toBe('users/1/conversations/140');
  });

  it('delays slow requests, then handles them', async () => {
    const e = await emulator(FAST);
    e.injectFault({ operation: 'legacy.list', kind: 'slow', delayMs: 60 });
    const started = Date.now();
    expect((await legacy(e, 'GET', '')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
  });

  it('draws faults by rate from the seed, the same way each run', async () => {
    const statuses = async () => {
      const e = await emulator({ ...FAST, seed: 3, faults: { rate503: 0.3, rate429: 0.2 } });
      const out: number[] = [];
      for (let i = 0; i < 30; i++) out.push((await legacy(e, 'GET', '')).status);
      return out;
    };
    const first = await statuses();
    expect(await statuses()).toEqual(first);
    expect(new Set(first)).toEqual(new Set([200, 429, 503]));
  });

  it('rejects invalid fault options', async () => {
    await expect(startEmulator({ faults: { rate500: 0.7, rate503: 0.7 } })).rejects.toThrow(/sum/);
    const e = await emulator(FAST);
    expect(() => e.injectFault({ operation: 'legacy.get', kind: 'dropField' })).toThrow();
  });
});

describe('server', () => {
  it('counts every request per operation', async () => {
    const e = await emulator(FAST);
    const { id } = await ask(e, 'q');
    await legacy(e, 'GET', `/${id}`);
    await legacy(e, 'GET', `/${id}`, undefined, 'sgp_wrong');
    await rpc(e, 'GetConversation', { name: `users/~self/conversations/${id}` });
    expect(e.counters()).toMatchObject({
      'legacy.create': 1,
      'legacy.get': 2,
      'legacy.list': 0,
      'versioned.GetConversation': 1,
      'versioned.CreateConversation': 0,
    });
  });

  it('serves extra routes with the authenticated user', async () => {
    const route: Route = {
      method: 'GET',
      path: '/.api/whoami/:greeting',
      operation: 'whoami',
      handler: (_req, res, ctx) => sendJson(res, 200, { user: ctx.user.username, greeting: ctx.params.greeting }, ctx),
    };
    const e = await emulator(FAST, { extraRoutes: [route] });
    const res = await fetch(`${e.url}/.api/whoami/hello`, { headers: { Authorization: 'token sgp_emulator_alice_token' } });
    expect(await res.json()).toEqual({ user: 'alice', greeting: 'hello' });
    expect((await fetch(`${e.url}/.api/whoami/hello`)).status).toBe(401);
    expect(e.counters().whoami).toBe(2);
  });

  it('prints url and tokens, and stops promptly even with a request in flight', async () => {
    const e = await startEmulator(FAST);
    expect(e.url).toBe(`http://127.0.0.1:${e.port}`);
    expect(e.adminToken).toBe(ADMIN);
    expect(e.tokens.map((t) => [t.username, t.token, t.scopes.length])).toEqual([
      ['admin', 'sgp_emulator_admin_token', 2],
      ['admin', 'sgp_emulator_readonly_token', 1],
      ['alice', 'sgp_emulator_alice_token', 2],
    ]);
    e.injectFault({ operation: 'legacy.list', kind: 'slow', delayMs: 60_000 });
    const inFlight = legacy(e, 'GET', '').catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = Date.now();
    await e.stop();
    await e.stop();
    expect(Date.now() - started).toBeLessThan(10_000); // not the 60 s of the slow request, even on a loaded machine
    expect(await inFlight).toBeInstanceOf(Error);
    await expect(fetch(`${e.url}/.api/deepsearch/v1`)).rejects.toThrow();
  });
});
