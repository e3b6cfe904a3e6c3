import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_PREFIX, type RequestLogEntry, type RunningEmulator } from '../../src/emulator/index.js';
import { ADMIN, ask, emulator, FAST, legacy, pollUntil, stopAll, tinySearch } from './helpers.js';

const TOKEN = 'admin-secret-0123456789';

afterAll(stopAll);

async function admin(e: RunningEmulator, method: string, name: string, body?: unknown, token: string | null = TOKEN) {
  const res = await fetch(`${e.url}${ADMIN_PREFIX}${name}`, {
    method,
    headers: { ...(token !== null && { Authorization: `Bearer ${token}` }), ...(body !== undefined && { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: text.startsWith('{') ? JSON.parse(text) : undefined };
}

const streamStatus = async (e: RunningEmulator) => (await fetch(`${e.url}/.api/search/stream?q=retry`, { headers: { Authorization: `token ${ADMIN}` } })).status;

describe('admin interface', () => {
  it('answers only with the admin token, and not at all without one configured', async () => {
    const e = await emulator({ ...FAST, admin: { token: TOKEN } }, { search: tinySearch });
    expect((await admin(e, 'GET', 'counters', undefined, null)).status).toBe(401);
    expect((await admin(e, 'GET', 'counters', undefined, 'wrong-token-0123456789')).status).toBe(401);
    // An API token is not an admin token.
    expect((await admin(e, 'GET', 'counters', undefined, ADMIN)).status).toBe(401);
    expect((await admin(e, 'GET', 'counters')).status).toBe(200);
    const off = await emulator(FAST, { search: tinySearch });
    expect((await admin(off, 'GET', 'counters', undefined, ADMIN)).status).toBe(404);
    await expect(emulator({ admin: { token: 'short' } })).rejects.toThrow(/16 characters/);
  });

  it('counts API requests per operation, not its own', async () => {
    const e = await emulator({ ...FAST, admin: { token: TOKEN } }, { search: tinySearch });
    await ask(e, 'Where is retryPolicy?');
    await admin(e, 'GET', 'counters');
    const { json } = await admin(e, 'GET', 'counters');
    expect(json.requests['legacy.create']).toBe(1);
    expect(json.requests['legacy.get']).toBe(0);
    expect(Object.keys(json.requests).some((k) => k.includes('admin'))).toBe(false);
    expect(json.faults).toEqual({});
  });

  it('logs method, path, operation, status and latency, never a credential or a query string', async () => {
    const seen: RequestLogEntry[] = [];
    const e = await emulator({ ...FAST, admin: { token: TOKEN } }, { search: tinySearch, onRequest: (entry) => seen.push(entry) });
    const { id, read_token } = await ask(e, 'Where is retryPolicy?');
    await legacy(e, 'GET', `?filter_read_token=${read_token}`);
    await legacy(e, 'GET', `/${id}`, undefined, 'sgp_not_a_token');
    e.injectFault({ operation: 'legacy.get', kind: 'reset' });
    await legacy(e, 'GET', `/${id}`).catch(() => undefined);
    const { json } = await admin(e, 'GET', 'log?limit=10');
    expect(json.requests.map((r: RequestLogEntry) => [r.method, r.path, r.operation, r.status])).toEqual([
      ['POST', '/.api/deepsearch/v1', 'legacy.create', 202],
      ['GET', '/.api/deepsearch/v1', 'legacy.list', 200],
      ['GET', `/.api/deepsearch/v1/${id}`, 'legacy.get', 401],
      // A reset connection has no status.
      ['GET', `/.api/deepsearch/v1/${id}`, 'legacy.get', 0],
    ]);
    for (const entry of json.requests) expect(entry.latencyMs).toBeGreaterThanOrEqual(0);
    const text = JSON.stringify(json) + JSON.stringify(seen);
    for (const secret of [ADMIN, TOKEN, 'sgp_not_a_token', read_token]) expect(text).not.toContain(secret);
    expect(seen).toEqual(json.requests);
    expect((await admin(e, 'GET', 'log?limit=1')).json.requests).toHaveLength(1);
  });

  it('switches every fault at run time, refusing settings that do not validate', async () => {
    const e = await emulator({ ...FAST, admin: { token: TOKEN } }, { search: tinySearch });
    const initial = (await admin(e, 'GET', 'faults')).json;
    expect(Object.keys(initial.http).sort()).toEqual(
      ['actDelayMs', 'clockOffsetMs', 'rate429', 'rate500', 'rate503', 'rateProxy502', 'rateReset', 'rateResetAfterAction', 'rateSlow', 'retryAfterSeconds', 'slowMs'].sort(),
    );
    expect(Object.keys(initial.stream.rates).sort()).toEqual(['cutBeforeDone', 'malformedEvent', 'stall', 'status401', 'status500']);

    expect((await admin(e, 'PATCH', 'faults', { http: { rate500: 1 } })).json.http.rate500).toBe(1);
    expect((await legacy(e, 'POST', '', { question: 'x' })).status).toBe(500);
    await admin(e, 'PATCH', 'faults', { http: { rate500: 0, rate429: 1, retryAfterSeconds: 7 } });
    const limited = await legacy(e, 'POST', '', { question: 'x' });
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '7']);

    const tooMuch = await admin(e, 'PATCH', 'faults', { http: { rate500: 0.5 } });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.json.message).toMatch(/sum to at most 1/);
    const typo = await admin(e, 'PATCH', 'faults', { http: { rate_500: 0.5 } });
    expect([typo.status, typo.json.message]).toEqual([400, expect.stringContaining('unknown fault setting http.rate_500')]);
    expect((await admin(e, 'GET', 'faults')).json.http).toMatchObject({ rate429: 1, rate500: 0 });

    await admin(e, 'PATCH', 'faults', { http: { rate429: 0 }, stream: { rates: { status401: 1 } } });
    expect(await streamStatus(e)).toBe(401);
    await admin(e, 'PATCH', 'faults', { stream: { rates: { status401: 0 } } });
    expect(await streamStatus(e)).toBe(200);
    await admin(e, 'POST', 'stream-faults/enqueue', { kinds: ['status500'] });
    expect(await streamStatus(e)).toBe(500);

    await admin(e, 'POST', 'faults/inject', { operation: 'legacy.create', kind: '503', times: 1 });
    expect((await legacy(e, 'POST', '', { question: 'x' })).status).toBe(503);
    expect((await legacy(e, 'POST', '', { question: 'x' })).status).toBe(202);
    expect((await admin(e, 'GET', 'counters')).json.faults).toMatchObject({ 'legacy.create.500': 1, 'legacy.create.429': 1, 'legacy.create.503': 1 });
    expect((await admin(e, 'DELETE', 'faults')).status).toBe(404);
  });

  it('moves the server clock and delays acting when those settings change', async () => {
    const e = await emulator({ ...FAST, timeScale: 1, admin: { token: TOKEN } }, { search: tinySearch });
    const serverTime = async () => Date.parse((await fetch(`${e.url}/.api/deepsearch/v1`, { headers: { 'X-Requested-With': 'x 1' } })).headers.get('date')!);
    const before = await serverTime();
    await admin(e, 'PATCH', 'faults', { http: { clockOffsetMs: -600_000 } });
    const behind = await serverTime();
    expect(before - behind).toBeGreaterThan(590_000);
    expect(before - behind).toBeLessThan(610_000);
    // Setting the same offset again does not move the clock further.
    await admin(e, 'PATCH', 'faults', { http: { clockOffsetMs: -600_000 } });
    expect(Math.abs((await serverTime()) - behind)).toBeLessThan(10_000);

    await admin(e, 'PATCH', 'faults', { http: { actDelayMs: 1_000 } });
    const ended: string[] = [];
    const started = performance.now();
    const write = legacy(e, 'POST', '', { question: 'x' }).then((r) => (ended.push('write'), r));
    // Reads are not delayed (the delay is between accepting a write and acting on it): one sent once the
    // write reached the server is answered before it, at any load (a delayed read would end after it).
    await pollUntil(async () => e.counters()['legacy.create'], (n) => n === 1);
    const read = legacy(e, 'GET', '').then(() => ended.push('read'));
    expect((await write).status).toBe(202);
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    await read;
    expect(ended).toEqual(['read', 'write']);
  });

  it('does not act on a write whose client is gone before it acts, as a server whose request context is cancelled', async () => {
    const e = await emulator(FAST, { search: tinySearch });
    // A whole request, then the connection closed right behind it: what a server reads from a client that
    // died (or gave up) after sending, once it gets to it.
    const body = JSON.stringify({ question: 'abandoned' });
    const socket = connect(e.port, '127.0.0.1');
    await once(socket, 'connect');
    socket.end(
      `POST /.api/deepsearch/v1 HTTP/1.1\r\nHost: x\r\nAuthorization: token ${ADMIN}\r\nX-Requested-With: x 1\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await pollUntil(async () => e.requestLog().length, (n) => n > 0);
    socket.destroy();
    // A client that waits is acted for; the abandoned create, received first, never was.
    expect((await legacy(e, 'POST', '', { question: 'kept' })).status).toBe(202);
    expect(e.counters()['legacy.create']).toBe(2);
    expect(e.questionRecords().map((q) => q.text)).toEqual(['kept']);
  });
});
