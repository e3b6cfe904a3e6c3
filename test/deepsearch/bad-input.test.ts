// Bad input and bad credentials, with the error the user sees (type, exit code, message), and what the
// emulator itself answers to the same mistakes sent raw. No message may carry a token or a read token.
import { afterEach, describe, expect, it } from 'vitest';
import { HttpStatusError, ProtocolError, UsageError } from '../../src/errors/errors.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import {
  ADMIN,
  APIS,
  CONNECT_HEADERS,
  FAST,
  LEGACY_HEADERS,
  READONLY,
  askAndSettle,
  client,
  closeAll,
  collect,
  emulator,
  failure,
  legacyClient,
  op,
  raw,
} from '../helpers/emulator.js';

afterEach(closeAll);

const LONG = 'x'.repeat(100_001);

describe.each(APIS)('%s client: bad input', (api) => {
  it('refuses an empty question and one over 100,000 characters before sending anything', async () => {
    const e = await emulator(FAST);
    const c = client(e, api);
    for (const text of ['', '   \n\t']) {
      const error = await failure(c.create(text));
      expect(error).toBeInstanceOf(UsageError);
      expect(error.exitCode).toBe(ExitCode.usage);
      expect(error.message).toContain('the question is empty');
    }
    const long = await failure(c.create(LONG));
    expect(long).toBeInstanceOf(UsageError);
    expect(long.message).toBe('the question has 100001 characters; the service accepts at most 100000');
    const { created } = await askAndSettle(c, 'Where is retryPolicy defined?');
    expect(await failure(c.addQuestion(created.ref, ''))).toBeInstanceOf(UsageError);
    expect(await failure(c.addQuestion(created.ref, LONG))).toBeInstanceOf(UsageError);
    expect(e.counters()[op(api, 'create')]).toBe(1);
    expect(e.counters()[op(api, 'addQuestion')]).toBe(0);
    // Exactly 100,000 characters is accepted.
    expect((await c.create('y'.repeat(100_000))).state).toBe('processing');
  });

  it('reports an unknown conversation as 404 with the usage exit code, for every operation on it', async () => {
    const e = await emulator(FAST);
    const c = client(e, api);
    const ref = api === 'legacy' ? '99999' : 'users/~self/conversations/99999';
    const calls = [() => c.get(ref), () => c.addQuestion(ref, 'Anything?'), () => c.delete(ref)];
    // Legacy cancel with a question id goes straight to the server; without one it first gets the conversation.
    calls.push(() => c.cancel(ref, api === 'legacy' ? '1' : undefined));
    for (const call of calls) {
      const error = await failure(call());
      expect(error).toBeInstanceOf(HttpStatusError);
      expect(error).toMatchObject({ status: 404, exitCode: ExitCode.usage });
      expect(error.message).toContain('conversation 99999 not found');
      expect(error.message).toContain('Check the conversation id or name');
    }
  });

  it('reports a bad token as 401 with the server\'s plain text, exit code 3, and without the token', async () => {
    const e = await emulator(FAST);
    const token = 'sgp_0123456789abcdef_not_a_real_token';
    const error = await failure(client(e, api, token).create('Where is retryPolicy defined?'));
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ status: 401, exitCode: ExitCode.unreachable });
    expect(error.message).toContain('HTTP 401: Invalid access token.');
    expect(error.message).toContain('Check SRC_ACCESS_TOKEN');
    expect(error.message).not.toContain(token);
    expect(error.message).not.toContain('0123456789abcdef');
    expect(e.counters()[op(api, 'create')]).toBe(1);
  });

  it('reports a missing token as 401', async () => {
    const e = await emulator(FAST);
    const error = await failure(client(e, api, '').get('140'));
    expect(error).toMatchObject({ status: 401, exitCode: ExitCode.unreachable });
    expect(error.message).toContain('Private mode requires authentication.');
  });
});

describe('versioned client: scopes', () => {
  it('fails a write with a read-only token: 403, exit code 3, naming the scope; reads work', async () => {
    const e = await emulator(FAST);
    const admin = client(e, 'versioned');
    const { created } = await askAndSettle(admin, 'Where is retryPolicy defined?');
    const readonly = client(e, 'versioned', READONLY);
    for (const call of [() => readonly.create('Where is retryPolicy defined?'), () => readonly.delete(created.ref), () => readonly.cancel(created.ref), () => readonly.addQuestion(created.ref, 'More?')]) {
      const error = await failure(call());
      expect(error).toBeInstanceOf(HttpStatusError);
      expect(error).toMatchObject({ status: 403, exitCode: ExitCode.unreachable });
      expect(error.message).toContain('permission_denied: the access token lacks the scope externalapi:write');
      expect(error.message).toContain('scope externalapi:read for reads and externalapi:write for writes');
      expect(error.message).not.toContain(READONLY);
    }
    expect((await readonly.get(created.ref)).state).toBe('completed');
    expect(await collect(readonly.list())).toHaveLength(1);
  });

  it('the legacy API has no scopes: the read-only token may create there', async () => {
    const e = await emulator(FAST);
    expect((await client(e, 'legacy', READONLY).create('Where is retryPolicy defined?')).state).toBe('processing');
  });
});

describe('what the emulator answers raw', () => {
  it('legacy: 400 JSON for an empty or too long question and for a mismatched conversation_id', async () => {
    const e = await emulator(FAST);
    const post = (path: string, body: unknown) => raw(e, 'POST', `/.api/deepsearch/v1${path}`, { body, headers: LEGACY_HEADERS });
    const empty = await post('', { question: '' });
    expect(empty).toMatchObject({ status: 400, json: { message: 'question must not be empty' } });
    expect(empty.contentType).toContain('application/json');
    const long = await post('', { question: LONG });
    expect(long).toMatchObject({ status: 400, json: { message: 'question must not exceed 100000 characters' } });

    const created = await post('', { question: 'Where is retryPolicy defined?' });
    expect(created.status).toBe(202);
    const id = created.json.id as number;
    const mismatched = await post(`/${id}/questions`, { conversation_id: id + 1, question: 'More?' });
    expect(mismatched).toMatchObject({ status: 400, json: { message: 'conversation_id must equal the conversation id of the path' } });
  });

  it('legacy: 400 plain text without X-Requested-With', async () => {
    const e = await emulator(FAST);
    const reply = await raw(e, 'GET', '/.api/deepsearch/v1');
    expect(reply.status).toBe(400);
    expect(reply.contentType).toContain('text/plain');
    expect(reply.text).toBe('X-Requested-With header is required\n');
    // The client always sends it.
    expect(await collect(client(e, 'legacy').list())).toEqual([]);
  });

  it('versioned: 400 Connect error for an empty or too long question', async () => {
    const e = await emulator(FAST);
    const create = (text: string) =>
      raw(e, 'POST', '/api/deepsearch.v1.Service/CreateConversation', {
        body: { conversation: { questions: [{ input: [{ question: { text } }] }] } },
        headers: CONNECT_HEADERS,
      });
    expect(await create('')).toMatchObject({ status: 400, json: { code: 'invalid_argument', message: 'question must not be empty' } });
    expect(await create(LONG)).toMatchObject({ status: 400, json: { code: 'invalid_argument', message: 'question must not exceed 100000 characters' } });
  });

  it('401s are plain text, before any API', async () => {
    const e = await emulator(FAST);
    for (const path of ['/.api/deepsearch/v1', '/api/deepsearch.v1.Service/GetConversation']) {
      const bad = await raw(e, 'POST', path, { token: 'sgp_nope', body: {}, headers: { ...LEGACY_HEADERS, ...CONNECT_HEADERS } });
      expect(bad).toMatchObject({ status: 401, text: 'Invalid access token.\n' });
      expect(bad.contentType).toContain('text/plain');
      const none = await raw(e, 'POST', path, { token: null, body: {}, headers: { ...LEGACY_HEADERS, ...CONNECT_HEADERS } });
      expect(none).toMatchObject({ status: 401, text: 'Private mode requires authentication.\n' });
    }
  });
});

describe('secrets in errors', () => {
  it('no error message or reply excerpt carries the token or a read token', async () => {
    const e = await emulator(FAST);
    const c = legacyClient(e);
    const { conversation } = await askAndSettle(c, 'Where is retryPolicy defined?');
    const readToken = conversation.readToken!;
    const errors: Error[] = [];

    // A reply the client cannot use: its excerpt holds the whole conversation, read token and share URL included.
    e.injectFault({ operation: 'legacy.get', kind: 'dropField', field: 'questions' });
    const protocol = await failure(c.get(conversation.ref));
    expect(protocol).toBeInstanceOf(ProtocolError);
    expect((protocol as ProtocolError).bodyExcerpt).toContain('REDACTED');
    errors.push(protocol);

    // A failed list by read token: the token is in the query string, never in the message.
    e.injectFault({ operation: 'legacy.list', kind: '500' });
    errors.push(await failure(c.getByReadToken(readToken)));
    e.injectFault({ operation: 'legacy.list', kind: 'dropField', field: '0.id' });
    errors.push(await failure(c.getByReadToken(readToken)));

    // Sharing refused (a fresh emulator), bad tokens, an unknown conversation.
    const closed = await emulator({ ...FAST, sharingEnabled: false });
    errors.push(await failure(legacyClient(closed).getByReadToken(readToken)));
    errors.push(await failure(client(e, 'versioned', 'sgp_emulator_admin_tokenX').get('140')));
    errors.push(await failure(client(e, 'legacy', `Bearer ${ADMIN}`).get('99999')));

    expect(errors).toHaveLength(6);
    for (const error of errors) {
      const text = `${error.message}\n${(error as ProtocolError).bodyExcerpt ?? ''}\n${(error as HttpStatusError).bodyExcerpt ?? ''}`;
      expect(text).not.toContain(ADMIN);
      expect(text).not.toContain(readToken);
      expect(text).not.toMatch(/sgp_emulator/);
    }
  });
});
