// Real Deep Search replies (test/fixtures/real/, sources in its README) served as they are by a loopback
// server, read through the real clients: each must give what a user should see. The versioned error
// state without questions also goes through a whole run, where it must end the wait at once and stop the
// target under --on-quota stop.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { connectionFor } from '../../src/config/credentials.js';
import { createClient, type DeepSearchClient } from '../../src/deepsearch/index.js';
import { isLimitError, withoutSecrets } from '../../src/model/conversation.js';
import { fixedSchedule, waitForQuestion } from '../../src/deepsearch/wait.js';
import { HttpStatusError } from '../../src/errors/errors.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { storedItems } from '../../src/store/index.js';
import { cleanup, runSuite, storedTurns, suite, target } from '../runner/fixtures/harness.js';

const REAL = new URL('../fixtures/real/', import.meta.url);
const real = (file: string): string => readFileSync(new URL(file, REAL), 'utf8');

let server: TestServer | undefined;
let client: DeepSearchClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  server = undefined;
  client = undefined;
  await cleanup();
});

/** Serves `body` (a fixture, as it is) with `status` to every request; returns a client of `api` on it. */
async function serving(api: 'legacy' | 'versioned', body: string, status = 200): Promise<DeepSearchClient> {
  server = await startServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  });
  client = createClient(connectionFor(server.url, 'sgp_fixture_token_0000', {}), api, { retry: { maxAttempts: 1 } });
  return client;
}

describe('legacy replies from the documentation', () => {
  it('docs-create.json: a processing question with zero stats; the read token is kept out of what is shown', async () => {
    const c = await serving('legacy', real('legacy/docs-create.json'));
    const conversation = await c.create('Does github.com/sourcegraph/sourcegraph have a README?');
    expect(conversation).toMatchObject({ api: 'legacy', ref: '140', state: 'processing', userId: 1 });
    expect(conversation.questions).toEqual([
      expect.objectContaining({ id: '163', index: 0, state: 'processing', rawState: 'processing', text: 'Does github.com/sourcegraph/sourcegraph have a README?' }),
    ]);
    expect(conversation.questions[0]!.stats).toMatchObject({ credits: 0, totalTokens: 0 });
    expect(JSON.stringify(withoutSecrets(conversation))).not.toContain('caebeb05-7755-4f89-834f-e3ee4a6acb25');
  });

  it('docs-get-completed.json: the answer, its source, stats, follow-ups and an unlimited quota', async () => {
    const c = await serving('legacy', real('legacy/docs-get-completed.json'));
    const conversation = await c.get('140');
    const question = conversation.questions[0]!;
    expect(conversation).toMatchObject({ state: 'completed', title: 'GitHub README check', viewerIsOwner: true, quotaUsage: { totalQuota: 0, quotaLimit: -1, resetTime: '2025-10-01T00:00:00Z' } });
    expect(question).toMatchObject({ state: 'completed', title: 'GitHub README check', sources: [{ type: 'Repository', link: '/github.com/sourcegraph/sourcegraph', label: 'github.com/sourcegraph/sourcegraph' }] });
    expect(question.answer).toMatch(/^Yes, \[github.com\/sourcegraph\/sourcegraph\]/);
    expect(question.stats).toEqual({
      timeMillis: 6369, toolCalls: 1, totalInputTokens: 13632, cachedTokens: 12359, cacheCreationInputTokens: 13625,
      promptTokens: 11, completionTokens: 156, totalTokens: 13694, credits: 2,
    });
    expect(question.suggestedFollowups).toHaveLength(2);
  });

  it('docs-question-error-snippet.json: a completed status with an error is a failed question, token limit', async () => {
    const conversation = JSON.parse(real('legacy/docs-get-completed.json')) as { questions: Array<Record<string, unknown>> };
    const { answer: _answer, title: _title, ...rest } = conversation.questions[0]!;
    conversation.questions[0] = { ...rest, ...(JSON.parse(real('legacy/docs-question-error-snippet.json')) as object) };
    const c = await serving('legacy', JSON.stringify(conversation));
    const question = (await c.get('140')).questions[0]!;
    expect(question).toMatchObject({
      state: 'error',
      rawState: 'completed',
      error: { code: 'TOKEN_LIMIT_EXCEEDED', rawCode: 'TokenLimitExceeded', title: 'Token limit reached', message: 'The search exceeded the maximum token limit...', details: 'Additional context about the error' },
    });
  });

  it('early-doc-followup-question.json: a follow-up reply that is the Question alone', async () => {
    const c = await serving('legacy', real('legacy/early-doc-followup-question.json'));
    const added = await c.addQuestion('332', 'What does the README file contain?');
    expect(added).toMatchObject({ id: '4981', state: 'completed', title: 'README content', text: 'What does the README file contain?', stats: { credits: 5 } });
    expect(added.answer).toContain('The [README.md]');
  });
});

describe('versioned replies from the platform CLI and docs', () => {
  it('srccli-create.json: processing, with the conversation name and URL', async () => {
    const c = await serving('versioned', real('versioned/srccli-create.json'));
    expect(await c.create('What does Deep Search use?')).toMatchObject({ api: 'versioned', ref: 'users/-/conversations/1', state: 'processing', shareUrl: 'https://example.com/deepsearch/1' });
  });

  it('srccli-get-completed.json: the markdown answer', async () => {
    const c = await serving('versioned', real('versioned/srccli-get-completed.json'));
    const conversation = await c.get('users/-/conversations/1');
    expect(conversation.state).toBe('completed');
    expect(conversation.questions[0]).toMatchObject({ state: 'completed', answer: 'Deep Search uses search and code intelligence.' });
  });

  it('srccli-addquestion.json: the added question, processing', async () => {
    const c = await serving('versioned', real('versioned/srccli-addquestion.json'));
    expect(await c.addQuestion('users/-/conversations/1', 'What calls this code?')).toMatchObject({ text: 'What calls this code?', state: 'processing' });
  });

  it('srccli-connect-error-400.json: a usage error (exit 2) quoting the Connect code and message, not retried', async () => {
    const c = await serving('versioned', real('versioned/srccli-connect-error-400.json'), 400);
    const error = await c.create('What?').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ status: 400, exitCode: ExitCode.usage, attempts: 1 });
    expect((error as Error).message).toContain('invalid_argument: question is required');
    expect(server!.received).toHaveLength(1);
  });

  it('real-9fd0a6d7.json: ERROR_INTERNAL past the output limit with answer text is TRUNCATED, the raw code kept', async () => {
    const c = await serving('versioned', real('versioned/real-9fd0a6d7.json'));
    const conversation = await c.get('users/476/conversations/2034');
    expect(conversation.questions[0]).toMatchObject({ state: 'error', partial: true, error: { code: 'TRUNCATED', rawCode: 'ERROR_INTERNAL' } });
    expect(conversation.error?.code).toBe('TRUNCATED');
  });

  it('real-9fd0a6d7.json without its answer: the same error is TRUNCATED_NO_ANSWER', async () => {
    const reply = JSON.parse(real('versioned/real-9fd0a6d7.json')) as { questions: Array<Record<string, unknown>> };
    delete reply.questions[0]!.answer;
    const c = await serving('versioned', JSON.stringify(reply));
    const conversation = await c.get('users/476/conversations/2034');
    expect(conversation.questions[0]).toMatchObject({ state: 'error', error: { code: 'TRUNCATED_NO_ANSWER', rawCode: 'ERROR_INTERNAL' } });
    expect(conversation.error?.code).toBe('TRUNCATED_NO_ANSWER');
  });

  it('docs-error-state-derived.json: a terminal state without questions ends the wait at the first poll', async () => {
    const c = await serving('versioned', real('versioned/docs-error-state-derived.json'));
    const waited = await waitForQuestion(c, 'users/~self/conversations/140', 0, { schedule: fixedSchedule(10), timeoutMs: 5_000 });
    expect(waited).toMatchObject({ polls: 1, timedOut: false });
    expect(waited.question).toMatchObject({ state: 'error', error: { code: 'QUOTA_EXCEEDED', rawCode: 'ERROR_QUOTA_EXCEEDED', message: '...', retryTime: '2025-10-01T00:00:00Z' } });
    expect(isLimitError(waited.question!.error!.code)).toBe(true);
  });

  it('docs-error-state-derived.json in a run: recorded as the quota error, and --on-quota stop stops the target', async () => {
    const state = real('versioned/docs-error-state-derived.json');
    server = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // The create is answered processing; every read then gives the fixture as it is.
      res.end(req.url?.endsWith('/CreateConversation') ? JSON.stringify({ name: 'users/~self/conversations/140', state: { processing: {} } }) : state);
    });
    const loaded = await suite(`name: real
defaults: { api: versioned, concurrency: 1, poll: { strategy: fixed, interval: 100ms, min: 100ms }, timeout: 1m }
questions:
  - { id: q0, question: Where is retryPolicy? }
  - { id: q1, question: Where is backoffDelay? }
`);
    const run = await runSuite(loaded, [target({ name: 'main', emulator: server.url })], { onQuota: 'stop' });
    try {
      const { db, result } = run;
      expect(storedTurns(db, result.runId, 'main/question/q0/0')).toMatchObject([{ state: 'error', errorCode: 'QUOTA_EXCEEDED', polls: 1 }]);
      expect(storedItems(db, result.runId).map((i) => i.outcome)).toEqual(['error', 'skipped']);
      expect(server.received.filter((r) => r.url.endsWith('/CreateConversation'))).toHaveLength(1);
    } finally {
      run.close();
    }
  });
});
