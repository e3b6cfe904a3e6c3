import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionError, HttpStatusError, OutcomeUnknownError, ProtocolError, AbortedError } from '../../src/errors/errors.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { parseRetryAfter } from '../../src/http/retry-policy.js';
import { Transport, type RetryInfo } from '../../src/http/transport.js';
import { closedPort, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
let transport: Transport | undefined;

afterEach(async () => {
  await transport?.close();
  await server?.close();
  server = undefined;
  transport = undefined;
});

function make(url: string, extra: Partial<ConstructorParameters<typeof Transport>[0]> = {}, retries: RetryInfo[] = []) {
  transport = new Transport({
    endpoint: url,
    headers: { authorization: 'token sgp_secret_value_123' },
    retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 50 },
    random: () => 0.5,
    onRetry: (info) => retries.push(info),
    ...extra,
  });
  return transport;
}

describe('Transport', () => {
  it('sends JSON with the configured headers and returns the parsed reply', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    const { json } = await make(server.url).requestJson({ operation: 'op', method: 'POST', path: '/x', body: { a: 1 }, query: { q: 'v', skip: undefined } });
    expect(json).toEqual({ ok: true });
    const got = server.received[0]!;
    expect(got.url).toBe('/x?q=v');
    expect(got.body).toBe('{"a":1}');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers.accept).toBe('application/json');
    expect(got.headers.authorization).toBe('token sgp_secret_value_123');
  });

  it('sends each attempt only once beforeSend has settled (after onAttempt), and fails at once when it rejects', async () => {
    server = await startServer((_req, res) => res.writeHead(200).end('{}'));
    const events: string[] = [];
    let release!: () => void;
    let gate: Promise<void> | undefined = new Promise<void>((resolve) => (release = resolve));
    const t = make(server.url, { beforeSend: () => (events.push('beforeSend'), gate) });
    const sent = t.request({ operation: 'op', method: 'POST', path: '/', body: {}, creates: true, onAttempt: () => events.push('attempt') });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(events).toEqual(['attempt', 'beforeSend']);
    expect(server.received).toHaveLength(0);
    release();
    await sent;
    expect(server.received).toHaveLength(1);

    gate = undefined;
    await t.request({ operation: 'op', method: 'GET', path: '/' });
    expect(server.received).toHaveLength(2);

    const fault = new Error('commit failed');
    gate = Promise.reject(fault);
    gate.catch(() => undefined);
    await expect(t.request({ operation: 'op', method: 'GET', path: '/', persistent: true, signal: new AbortController().signal })).rejects.toBe(fault);
    expect(server.received).toHaveLength(2);
  });

  it('tells beforeSend whether a request is a cleanup, and sends nothing when it rejects', async () => {
    server = await startServer((_req, res) => res.writeHead(200).end('{}'));
    const told: boolean[] = [];
    const fault = new Error('commit failed');
    const t = make(server.url, {
      beforeSend: ({ cleanup }) => {
        told.push(cleanup);
        if (!cleanup) return undefined;
        const rejected = Promise.reject(fault);
        rejected.catch(() => undefined);
        return rejected;
      },
    });
    await t.request({ operation: 'get', method: 'GET', path: '/' });
    await expect(t.request({ operation: 'cancel', method: 'POST', path: '/', body: {}, cleanup: true })).rejects.toBe(fault);
    expect(told).toEqual([false, true]);
    expect(server.received).toHaveLength(1);
  });

  it.each([429, 502, 503, 504])('retries HTTP %i on a read and then succeeds', async (status) => {
    server = await startServer((_req, res, _body, n) => {
      if (n < 3) res.writeHead(status).end('busy');
      else res.writeHead(200).end('{}');
    });
    const retries: RetryInfo[] = [];
    await make(server.url, {}, retries).request({ operation: 'op', method: 'GET', path: '/' });
    expect(server.received).toHaveLength(3);
    expect(retries.map((r) => r.reason)).toEqual([`HTTP ${status}`, `HTTP ${status}`]);
  });

  it('does not retry 500 or 400, and the error carries status, endpoint, redacted excerpt and exit code', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"boom with token sgp_abcdef123456"}');
    });
    const error = await make(server.url).request({ operation: 'legacy.get', method: 'GET', path: '/.api/thing/1?filter_read_token=abc' }).catch((e) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(server.received).toHaveLength(1);
    expect(error.status).toBe(500);
    expect(error.exitCode).toBe(ExitCode.unreachable);
    expect(error.message).toContain('legacy.get (GET /.api/thing/1');
    expect(error.message).toContain('boom with token [REDACTED]');
    expect(error.message).not.toContain('sgp_abcdef123456');
    expect(error.bodyExcerpt).not.toContain('sgp_abcdef123456');
  });

  it('gives up after maxAttempts and says how many attempts were made', async () => {
    server = await startServer((_req, res) => res.writeHead(503).end('down'));
    const error = await make(server.url).request({ operation: 'op', method: 'GET', path: '/' }).catch((e) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(server.received).toHaveLength(4);
    expect(error.message).toContain('after 4 attempts');
  });

  it('honours Retry-After in seconds and as an HTTP date', async () => {
    server = await startServer((_req, res, _body, n) => {
      if (n === 1) res.writeHead(429, { 'retry-after': '0.02' }).end();
      // A date already past: retry at once, not after a backoff.
      else if (n === 2) res.writeHead(429, { 'retry-after': new Date(Date.now() - 5000).toUTCString() }).end();
      else res.writeHead(200).end('{}');
    });
    const retries: RetryInfo[] = [];
    await make(server.url, { retry: { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 5000 }, random: () => 0.9 }, retries).request({ operation: 'op', method: 'GET', path: '/' });
    expect(retries.map((r) => r.delayMs)).toEqual([20, 0]);
  });

  it('does not wait for a Retry-After longer than the delay cap', async () => {
    server = await startServer((_req, res) => res.writeHead(429, { 'retry-after': '3600' }).end('slow down'));
    const error = await make(server.url).request({ operation: 'op', method: 'GET', path: '/' }).catch((e) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(server.received).toHaveLength(1);
    expect(error.message).toContain('Retry-After 3600 s exceeds');
  });

  it('uses full-jitter exponential backoff capped by maxDelayMs', async () => {
    server = await startServer((_req, res) => res.writeHead(502).end());
    const retries: RetryInfo[] = [];
    await make(server.url, { retry: { maxAttempts: 5, baseDelayMs: 10, maxDelayMs: 30 }, random: () => 0.999 }, retries)
      .request({ operation: 'op', method: 'GET', path: '/' })
      .catch(() => undefined);
    expect(retries.map((r) => r.delayMs)).toEqual([9, 19, 29, 29]);
  });

  it('retries a create on 429 and 503, where the server provably did not act', async () => {
    server = await startServer((_req, res, _body, n) => {
      if (n === 1) res.writeHead(429).end();
      else if (n === 2) res.writeHead(503).end();
      else res.writeHead(200).end('{"id":1}');
    });
    const { json } = await make(server.url).requestJson({ operation: 'create', method: 'POST', path: '/', body: {}, creates: true });
    expect(json).toEqual({ id: 1 });
    expect(server.received).toHaveLength(3);
  });

  it.each([502, 504])('does not retry a create on HTTP %i (the server may have acted)', async (status) => {
    server = await startServer((_req, res) => res.writeHead(status).end());
    const error = await make(server.url).request({ operation: 'create', method: 'POST', path: '/', body: {}, creates: true }).catch((e) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(server.received).toHaveLength(1);
  });

  it('reports an unknown outcome, without retrying, when the connection breaks after a create was sent', async () => {
    server = await startServer((req) => req.socket.destroy());
    const error = await make(server.url).request({ operation: 'legacy.create', method: 'POST', path: '/c', body: { question: 'q' }, creates: true }).catch((e) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error.message).toContain('outcome is unknown');
    expect(error.exitCode).toBe(ExitCode.unreachable);
    expect(server.received).toHaveLength(1);
  });

  it('retries a read whose connection was reset', async () => {
    server = await startServer((req, res, _body, n) => {
      if (n === 1) req.socket.destroy();
      else res.writeHead(200).end('{}');
    });
    await make(server.url).request({ operation: 'op', method: 'GET', path: '/' });
    expect(server.received).toHaveLength(2);
  });

  it('retries a create when the connection is refused, then reports the endpoint as unreachable', async () => {
    const url = await closedPort();
    const retries: RetryInfo[] = [];
    const error = await make(url, {}, retries).request({ operation: 'create', method: 'POST', path: '/', body: {}, creates: true }).catch((e) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.code).toBe('ECONNREFUSED');
    expect(error.exitCode).toBe(ExitCode.unreachable);
    expect(retries).toHaveLength(3);
    expect(error.message).toContain('could not reach the instance');
  });

  it('times out one attempt and retries a read; a create that timed out has an unknown outcome', async () => {
    server = await startServer(() => {
      // never answers
    });
    // Attempts are counted on the client: with a 30 ms timeout, a busy server may not have read a request
    // before its client gave up on it.
    const retries: RetryInfo[] = [];
    const read = await make(server.url, { timeoutMs: 30, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 } }, retries)
      .request({ operation: 'op', method: 'GET', path: '/' })
      .catch((e) => e);
    expect(read).toBeInstanceOf(ConnectionError);
    expect(read.code).toBe('TIMEOUT');
    expect(retries).toHaveLength(1);
    const create = await transport!.request({ operation: 'create', method: 'POST', path: '/', body: {}, creates: true, timeoutMs: 30 }).catch((e) => e);
    expect(create).toBeInstanceOf(OutcomeUnknownError);
    expect(retries).toHaveLength(1);
  });

  it('times out an attempt whose body stalls after its headers, and the next attempt reads the whole reply', async () => {
    let calls = 0;
    server = await startServer((_req, res) => {
      calls++;
      res.writeHead(200, { 'content-type': 'application/json' });
      if (calls === 1) res.write('{"ok":'); // and nothing more
      else res.end('{"ok":true}');
    });
    const retries: RetryInfo[] = [];
    // Long enough that only the stall times out, even on a loaded machine.
    const { json } = await make(server.url, { timeoutMs: 500 }, retries).requestJson({ operation: 'op', method: 'GET', path: '/' });
    expect(json).toEqual({ ok: true });
    expect(retries.map((r) => r.reason)).toEqual(['TIMEOUT']);
  });

  it('gives the reply headers with names in lower case and a repeated header joined', async () => {
    server = await startServer((_req, res) => {
      res.setHeader('X-Many', ['a', 'b']);
      res.setHeader('Date', 'Wed, 21 Oct 2026 07:28:00 GMT');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    const { headers } = await make(server.url).request({ operation: 'op', method: 'GET', path: '/' });
    expect(headers['x-many']).toBe('a, b');
    expect(headers.date).toBe('Wed, 21 Oct 2026 07:28:00 GMT');
  });

  it('turns a non-JSON proxy error page into a readable message', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' }).end('<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>');
    });
    const error = await make(server.url, { retry: { maxAttempts: 1 } }).request({ operation: 'op', method: 'GET', path: '/p' }).catch((e) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error.message).toContain('non-JSON error page "502 Bad Gateway"');
  });

  it('keeps a plain-text 401 body as the message and says what to do', async () => {
    server = await startServer((_req, res) => res.writeHead(401, { 'content-type': 'text/plain' }).end('Invalid access token.\n'));
    const error = await make(server.url).request({ operation: 'op', method: 'GET', path: '/' }).catch((e) => e);
    expect(error.status).toBe(401);
    expect(error.message).toContain('Invalid access token.');
    expect(error.message).toContain('SRC_ACCESS_TOKEN');
    expect(error.exitCode).toBe(ExitCode.unreachable);
  });

  it('rejects a 2xx body that is not JSON with a protocol error', async () => {
    server = await startServer((_req, res) => res.writeHead(200).end('<html>login</html>'));
    const error = await make(server.url).requestJson({ operation: 'op', method: 'GET', path: '/' }).catch((e) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.message).toContain('not JSON');
  });

  it('stops at once when the caller aborts, also during a backoff wait', async () => {
    server = await startServer((_req, res) => res.writeHead(503, { 'retry-after': '1' }).end());
    const controller = new AbortController();
    const pending = make(server.url, { retry: { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 5000 } })
      .request({ operation: 'op', method: 'GET', path: '/', signal: controller.signal })
      .catch((e) => e);
    while (server.received.length === 0) await new Promise((r) => setImmediate(r));
    controller.abort();
    expect(await pending).toBeInstanceOf(AbortedError);
  });

  it('lets a create under way finish when the caller aborts, so its conversation is known', async () => {
    let release: () => void = () => {};
    const replied = new Promise<void>((resolve) => (release = resolve));
    server = await startServer(async (_req, res) => {
      await replied;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":7}');
    });
    const controller = new AbortController();
    const pending = make(server.url).requestJson({ operation: 'create', method: 'POST', path: '/', body: {}, creates: true, signal: controller.signal });
    while (server.received.length === 0) await new Promise((r) => setImmediate(r));
    controller.abort();
    release();
    expect((await pending).json).toEqual({ id: 7 });

  });

  it('an aborted create whose attempt under way answers 503 is not tried again', async () => {
    let release: () => void = () => {};
    const replied = new Promise<void>((resolve) => (release = resolve));
    server = await startServer(async (_req, res) => {
      await replied;
      res.writeHead(503).end();
    });
    const controller = new AbortController();
    const pending = make(server.url)
      .requestJson({ operation: 'create', method: 'POST', path: '/', body: {}, creates: true, signal: controller.signal })
      .catch((e) => e);
    while (server.received.length === 0) await new Promise((r) => setImmediate(r));
    controller.abort();
    release();
    expect(await pending).toBeInstanceOf(AbortedError);
    expect(server.received).toHaveLength(1);
  });

  it('keeps connections alive between requests to one origin', async () => {
    server = await startServer((_req, res) => res.writeHead(200).end('{}'));
    const t = make(server.url);
    for (let i = 0; i < 10; i++) await t.request({ operation: 'op', method: 'GET', path: '/' });
    const ports = new Set(server.received.map((r) => r.remotePort));
    expect(server.received).toHaveLength(10);
    // A socket may not be back in the pool by the next request, so allow a second one, not ten.
    expect(ports.size).toBeLessThanOrEqual(2);
  });
});

describe('Transport: reply size cap', () => {
  const cap = 64 * 1024;

  it.each([
    ['declared by Content-Length', true],
    ['chunked, without a length', false],
  ])('a reply body above --max-reply-size (%s) is a protocol error, read no further and not retried', async (_what, declared) => {
    const chunk = Buffer.alloc(16 * 1024, 'a');
    let written = 0;
    server = await startServer(async (_req, res) => {
      res.writeHead(200, declared ? { 'content-type': 'application/json', 'content-length': String(1024 * 1024 * 1024) } : { 'content-type': 'application/json' });
      // A server that would send a gigabyte: it stops when the client hangs up.
      while (written < 1024 * 1024 * 1024 && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      res.end();
    });
    const error = await make(server.url, { maxReplyBytes: cap }).requestJson({ operation: 'op', method: 'GET', path: '/big' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toContain(`larger than the cap of ${cap} bytes (--max-reply-size)`);
    expect((error as ProtocolError).exitCode).toBe(ExitCode.unreachable);
    expect(server.received).toHaveLength(1);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('a reply at the cap is read whole; an error reply is quoted from its beginning only', async () => {
    const body = JSON.stringify({ pad: 'x'.repeat(cap - 20) });
    server = await startServer((req, res) => {
      if (req.url === '/ok') res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      else res.writeHead(400, { 'content-type': 'text/plain' }).end(`bad request ${'y'.repeat(4 * 1024 * 1024)}`);
    });
    const t = make(server.url, { maxReplyBytes: cap });
    expect((await t.request({ operation: 'op', method: 'GET', path: '/ok' })).text).toBe(body);
    const error = await t.request({ operation: 'op', method: 'GET', path: '/bad' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(400);
    expect((error as Error).message.length).toBeLessThan(2000);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('Wed, 21 Oct 2026 07:27:58 GMT');
  it.each([
    ['120', 120_000],
    ['1.5', 1500],
    ['Wed, 21 Oct 2026 07:28:00 GMT', 2000],
    ['Wed, 21 Oct 2026 07:00:00 GMT', 0],
  ])('%s is %i ms', (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });

  it.each([undefined, '', 'soon', '-5'])('%s is no delay at all', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});
