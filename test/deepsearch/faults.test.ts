// Fault modes of the emulator through both clients: what is retried, what is not, and what the user
// is told. Counters on the emulator prove how many requests arrived and how many conversations exist.
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionError, HttpStatusError, OutcomeUnknownError, ProtocolError } from '../../src/errors/errors.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import type { RetryInfo } from '../../src/http/transport.js';
import { closedPort } from '../helpers/server.js';
import { APIS, FAST, askAndSettle, client, closeAll, collect, emulator, failure, op, type Api } from '../helpers/emulator.js';

afterEach(closeAll);

/** Backoff would wait 9 ms (random 0.99 of a 10 ms base); a wait of 0 therefore comes from Retry-After. */
function retrying(retries: RetryInfo[]) {
  return { retry: { baseDelayMs: 10, maxDelayMs: 20 }, random: () => 0.99, onRetry: (info: RetryInfo) => retries.push(info) };
}

function endpointOf(api: Api, name: 'create' | 'get'): string {
  if (api === 'legacy') return name === 'create' ? 'POST /.api/deepsearch/v1' : 'GET /.api/deepsearch/v1/';
  return `POST /api/deepsearch.v1.Service/${name === 'create' ? 'CreateConversation' : 'GetConversation'}`;
}

/** A reply slower than this times out: long enough that a loaded machine answers a fast one within it, short of the faults' 2 s. */
const SLOW_REPLY_MS = 300;

describe.each(APIS)('%s client: faults', (api) => {
  it('retries a create answered 429, honouring Retry-After: one conversation', async () => {
    const e = await emulator(FAST);
    const retries: RetryInfo[] = [];
    const c = client(e, api, undefined, retrying(retries));
    e.injectFault({ operation: op(api, 'create'), kind: '429', retryAfterSeconds: 0 });
    const created = await c.create('Where is retryPolicy defined?');
    expect(created.state).toBe('processing');
    expect(e.counters()[op(api, 'create')]).toBe(2);
    expect(e.faultCounters()[`${op(api, 'create')}.429`]).toBe(1);
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, delayMs: 0, reason: 'HTTP 429' })]);
    expect(e.questionRecords()).toHaveLength(1);
    expect(await collect(c.list())).toHaveLength(1);
  });

  it('does not wait for a Retry-After beyond the delay cap, and says so', async () => {
    const e = await emulator(FAST);
    const c = client(e, api);
    e.injectFault({ operation: op(api, 'create'), kind: '429', retryAfterSeconds: 120 });
    const error = await failure(c.create('Where is retryPolicy defined?'));
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error.exitCode).toBe(ExitCode.unreachable);
    expect(error.message).toContain('HTTP 429');
    expect(error.message).toContain('Retry-After 120 s exceeds the retry delay cap');
    expect(e.counters()[op(api, 'create')]).toBe(1);
  });

  it('retries a create answered 503: one conversation', async () => {
    const e = await emulator(FAST);
    const retries: RetryInfo[] = [];
    const c = client(e, api, undefined, retrying(retries));
    e.injectFault({ operation: op(api, 'create'), kind: '503' });
    await c.create('Where is retryPolicy defined?');
    expect(e.counters()[op(api, 'create')]).toBe(2);
    expect(retries.map((r) => r.reason)).toEqual(['HTTP 503']);
    expect(e.questionRecords()).toHaveLength(1);
  });

  it('gives up after the last attempt of a 503', async () => {
    const e = await emulator(FAST);
    const c = client(e, api, undefined, { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 } });
    e.injectFault({ operation: op(api, 'create'), kind: '503', times: 3 });
    const error = await failure(c.create('Where is retryPolicy defined?'));
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error.message).toContain('HTTP 503');
    expect(error.message).toContain('after 3 attempts');
    expect(error.exitCode).toBe(ExitCode.unreachable);
    expect(e.questionRecords()).toHaveLength(0);
  });

  it('does not retry a 500', async () => {
    const e = await emulator(FAST);
    const c = client(e, api);
    e.injectFault({ operation: op(api, 'create'), kind: '500' });
    const error = await failure(c.create('Where is retryPolicy defined?'));
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ status: 500, attempts: 1, exitCode: ExitCode.unreachable });
    expect(error.message).toContain('internal server error');
    expect(e.counters()[op(api, 'create')]).toBe(1);
    expect(e.questionRecords()).toHaveLength(0);
  });

  it('does not retry a 500 on a read either (fault rate 1)', async () => {
    const e = await emulator({ ...FAST, faults: { rate500: 1 } });
    const error = await failure(client(e, api).get('140'));
    expect(error).toMatchObject({ status: 500, attempts: 1 });
    expect(e.counters()[op(api, 'get')]).toBe(1);
  });

  it('retries a read whose connection was reset before the server acted', async () => {
    const e = await emulator(FAST);
    const retries: RetryInfo[] = [];
    const c = client(e, api, undefined, retrying(retries));
    const { created } = await askAndSettle(c, 'Where is retryPolicy defined?');
    const before = e.counters()[op(api, 'get')]!;
    e.injectFault({ operation: op(api, 'get'), kind: 'reset' });
    const got = await c.get(created.ref);
    expect(got.state).toBe('completed');
    expect(e.counters()[op(api, 'get')]! - before).toBe(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.reason).toMatch(/^(UND_ERR_SOCKET|ECONNRESET|EPIPE)$/);
  });

  it('reports a create whose connection broke as of unknown outcome, without retrying', async () => {
    const e = await emulator(FAST);
    const c = client(e, api);
    e.injectFault({ operation: op(api, 'create'), kind: 'resetAfterAction' });
    const error = await failure(c.create('Where is retryPolicy defined?'));
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error.exitCode).toBe(ExitCode.unreachable);
    expect(error.message).toContain('outcome is unknown');
    expect(error.message).toContain('List conversations');
    expect(e.counters()[op(api, 'create')]).toBe(1);
    // The server did act: the conversation exists, once.
    expect(e.questionRecords()).toHaveLength(1);
    expect(await collect(c.list())).toHaveLength(1);
  });

  it('does not retry a create reset before the server acted either: the client cannot tell', async () => {
    const e = await emulator(FAST);
    const c = client(e, api);
    e.injectFault({ operation: op(api, 'create'), kind: 'reset' });
    expect(await failure(c.create('Where is retryPolicy defined?'))).toBeInstanceOf(OutcomeUnknownError);
    expect(e.counters()[op(api, 'create')]).toBe(1);
    expect(e.questionRecords()).toHaveLength(0);
  });

  it('reports a proxy\'s HTML 502 page readably; a create is not retried, a read is', async () => {
    const e = await emulator(FAST);
    const c = client(e, api);
    e.injectFault({ operation: op(api, 'create'), kind: 'proxy502' });
    const error = await failure(c.create('Where is retryPolicy defined?'));
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error.exitCode).toBe(ExitCode.unreachable);
    expect(error.message).toContain('HTTP 502: non-JSON error page "502 Bad Gateway" (from a proxy?)');
    expect(error.message).not.toContain('<html>');
    expect(e.counters()[op(api, 'create')]).toBe(1);

    const { created } = await askAndSettle(c, 'Where is retryPolicy defined?');
    const before = e.counters()[op(api, 'get')]!;
    e.injectFault({ operation: op(api, 'get'), kind: 'proxy502' });
    expect((await c.get(created.ref)).state).toBe('completed');
    expect(e.counters()[op(api, 'get')]! - before).toBe(2);
  });

  it('names the missing field, the operation and the endpoint when a reply lacks a required field', async () => {
    const e = await emulator(FAST);
    const c = client(e, api);
    const field = api === 'legacy' ? 'id' : 'name';
    e.injectFault({ operation: op(api, 'create'), kind: 'dropField', field });
    const error = await failure(c.create('Where is retryPolicy defined?'));
    expect(error).toBeInstanceOf(ProtocolError);
    // The instance's reply is at fault, not dsbench: 3, never the internal-error code.
    expect(error.exitCode).toBe(ExitCode.unreachable);
    expect(error.message).toContain(`field "${field}" is missing`);
    expect(error.message).toContain(`${op(api, 'create')} (${endpointOf(api, 'create')})`);
    // A missing reply field is not retried: the create happened.
    expect(e.counters()[op(api, 'create')]).toBe(1);
  });

  it('names a nested missing field of a get reply', async () => {
    const e = await emulator(FAST);
    const c = client(e, api);
    const { created } = await askAndSettle(c, 'Where is retryPolicy defined?');
    const field = api === 'legacy' ? 'questions.0.status' : 'name';
    e.injectFault({ operation: op(api, 'get'), kind: 'dropField', field });
    const error = await failure(c.get(created.ref));
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.message).toContain(`field "${field}" is missing`);
    expect(error.message).toContain(endpointOf(api, 'get'));
  });

  it('times out a slow reply per attempt, retrying a read until the attempts are spent', async () => {
    const e = await emulator(FAST);
    const c = client(e, api, undefined, { timeoutMs: SLOW_REPLY_MS, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 } });
    e.injectFault({ operation: op(api, 'get'), kind: 'slow', delayMs: 2_000, times: 2 });
    const error = await failure(c.get('140'));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: 'TIMEOUT', attempts: 2, exitCode: ExitCode.unreachable });
    expect(error.message).toContain(`no complete reply within ${SLOW_REPLY_MS} ms`);
    expect(e.counters()[op(api, 'get')]).toBe(2);
  });

  it('succeeds when only the first attempt was slow', async () => {
    const e = await emulator(FAST);
    const c = client(e, api, undefined, { timeoutMs: SLOW_REPLY_MS, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    const { created } = await askAndSettle(c, 'Where is retryPolicy defined?');
    e.injectFault({ operation: op(api, 'get'), kind: 'slow', delayMs: 2_000 });
    expect((await c.get(created.ref)).ref).toBe(created.ref);
  });

  it('reports a slow create as of unknown outcome (it may have been acted on)', async () => {
    const e = await emulator(FAST);
    const c = client(e, api, undefined, { timeoutMs: SLOW_REPLY_MS, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    e.injectFault({ operation: op(api, 'create'), kind: 'slow', delayMs: 2_000 });
    const error = await failure(c.create('Where is retryPolicy defined?'));
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error.message).toContain('TIMEOUT');
    expect(e.counters()[op(api, 'create')]).toBe(1);
  });

  it('reports an unreachable endpoint as a connection error with exit code 3 after every attempt', async () => {
    const url = await closedPort();
    const retries: RetryInfo[] = [];
    const c = client(url, api, undefined, { retry: { baseDelayMs: 1, maxDelayMs: 5 }, onRetry: (info) => retries.push(info) });
    for (const call of [() => c.create('Where is retryPolicy defined?'), () => c.get('140')]) {
      const error = await failure(call());
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error).toMatchObject({ code: 'ECONNREFUSED', attempts: 5, exitCode: ExitCode.unreachable });
      expect(error.message).toContain('could not reach the instance');
      expect(error.message).toContain('Check --endpoint / SRC_ENDPOINT');
    }
    // A refused connection proves nothing was sent, so even the create was retried.
    expect(retries).toHaveLength(8);
  });
});
