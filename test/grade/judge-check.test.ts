// The judge as the platform accepts it: what it sends (to the instance and to an external endpoint), how a
// refusal reads, and the check before a run: a gated LLM API stops the run before the first question, or
// with --if-judge-unavailable continue is said once and nothing is recorded as passed.
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { JudgeSchema } from '../../src/config/suite.js';
import { JudgeClient, resolveJudgeEndpoint } from '../../src/grade/judge-client.js';
import { JudgeError } from '../../src/errors/errors.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { dsbenchHere } from '../helpers/cli-here.js';
import { CORPUS_SEARCH, cleanup, corpusDir, emulator, tempDir, writeSuite } from '../runner/fixtures/harness.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await cleanup();
});

const MODEL = 'anthropic::2024-10-22::claude-sonnet-4-latest';
const TOKEN = 'sgp_emulator_admin_token';
const FILES = {
  'github.com/npm/undici/lib/handler/retry-handler.js': 'class RetryHandler {\n  constructor (opts) {\n    this.retryAfter = opts.retryAfter\n  }\n}\n\nmodule.exports = RetryHandler\n',
};
const SUITE = `name: judged
defaults: { api: legacy, timeout: 10m, poll: { strategy: fixed, interval: 1s } }
questions:
  - id: retry
    question: Where is RetryHandler implemented in undici?
    expect:
      rubric: Names \`RetryHandler\`.
      minScore: 0.5
`;

/** A server that answers every judge request as the platform would, keeping what it was sent. */
async function chatServer(reply: (body: Record<string, unknown>) => { status: number; type?: string; text: string }): Promise<TestServer> {
  const server = await startServer((req, res, body) => {
    if (req.url?.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [{ id: MODEL }] }));
      return;
    }
    const r = reply(JSON.parse(body) as Record<string, unknown>);
    res.writeHead(r.status, { 'content-type': r.type ?? 'application/json' }).end(r.text);
  });
  servers.push(server);
  return server;
}

const verdict = { status: 200, text: JSON.stringify({ choices: [{ message: { content: '{"score": 1, "pass": true, "reasons": []}' } }] }) };

describe('what the judge sends', () => {
  it('sends only what the platform accepts, to the instance and to an external endpoint alike', async () => {
    const server = await chatServer(() => verdict);
    const judge = JudgeSchema.parse({});
    const instance = resolveJudgeEndpoint(judge, { endpoint: server.url, token: 'sgp_t', extraHeaders: {} }, {});
    const external = resolveJudgeEndpoint(judge, undefined, { DSBENCH_JUDGE_ENDPOINT: `${server.url}/v1`, DSBENCH_JUDGE_TOKEN: 'sk-x', DSBENCH_JUDGE_MODEL: MODEL });
    for (const endpoint of [instance, external]) {
      const client = new JudgeClient(endpoint);
      try {
        await client.complete('Grade this.');
      } finally {
        await client.close();
      }
    }
    const chats = server.received.filter((r) => r.url.endsWith('/chat/completions'));
    expect(chats.map((r) => r.url)).toEqual(['/.api/llm/chat/completions', '/v1/chat/completions']);
    for (const r of chats) {
      const body = JSON.parse(r.body) as Record<string, unknown>;
      // No seed, response_format, n, user, stream or system message; max_tokens always (the platform's default is 16).
      expect(Object.keys(body).sort()).toEqual(['max_tokens', 'messages', 'model', 'temperature']);
      expect(body).toMatchObject({ model: MODEL, messages: [{ role: 'user', content: 'Grade this.' }], max_tokens: 1000, temperature: 0 });
      expect(r.headers['x-requested-with']).toMatch(/^dsbench \S+$/);
    }
    expect(chats.map((r) => r.headers.authorization)).toEqual(['token sgp_t', 'Bearer sk-x']);
  });

  it('refuses a model id the instance cannot take before asking anything', () => {
    const connection = { endpoint: 'http://127.0.0.1:9', token: 'sgp_t', extraHeaders: {} };
    expect(() => resolveJudgeEndpoint(JudgeSchema.parse({ model: 'gpt-4o' }), connection, {})).toThrow(/judge model "gpt-4o" is not of the form provider::api-version::model/);
    // Another endpoint names its models its own way.
    expect(resolveJudgeEndpoint(JudgeSchema.parse({ model: 'gpt-4o' }), connection, { DSBENCH_JUDGE_ENDPOINT: 'http://127.0.0.1:9/v1' }).model).toBe('gpt-4o');
  });

  it.each([
    ['plain text', 'text/plain; charset=utf-8', 'seed is not supported\n', /HTTP 400: seed is not supported$/],
    ['JSON {type, message}', 'application/json', JSON.stringify({ type: 'invalid_request_error', message: 'system role is not supported' }), /HTTP 400: invalid_request_error: system role is not supported$/],
  ])('names a %s refusal in its error', async (_, type, text, message) => {
    const server = await chatServer(() => ({ status: 400, type, text }));
    const client = new JudgeClient(resolveJudgeEndpoint(JudgeSchema.parse({ model: MODEL }), { endpoint: server.url, token: 'sgp_t', extraHeaders: {} }, {}));
    try {
      const error = await client.complete('x').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(JudgeError);
      expect((error as Error).message).toMatch(new RegExp(`^judge at ${server.url}/\\.api/llm: POST /chat/completions failed with HTTP 400: `));
      expect((error as Error).message).toMatch(message);
    } finally {
      await client.close();
    }
  });
});

describe('checking the judge before the run', () => {
  const run = (args: string[], env: Record<string, string> = {}) => dsbenchHere(['run', ...args], env);
  const grade = (args: string[], env: Record<string, string> = {}) => dsbenchHere(['grade', ...args], env);

  async function gated() {
    const e = await emulator({ timeScale: 0.001, medianMs: 5_000, corpus: { dir: corpusDir(FILES) }, llmGated: true }, CORPUS_SEARCH);
    return { e, target: ['--target', `emu=${e.url}`], env: { DSBENCH_TOKEN_EMU: TOKEN } };
  }

  function grades(db: string) {
    const d = new Database(db, { readonly: true });
    try {
      return d.prepare('SELECT status, passed, error FROM grades').all() as Array<{ status: string; passed: number; error: string }>;
    } finally {
      d.close();
    }
  }

  it('refuses to start on a gated LLM API, in one line: what failed, where, what to do; nothing is asked', async () => {
    const { e, target, env } = await gated();
    const db = path.join(tempDir(), 'runs.db');
    const exit = await run([writeSuite(SUITE), ...target, '--db', db, '--quiet'], env);
    expect(exit.code).toBe(ExitCode.usage);
    const lines = exit.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^dsbench: not starting: judge at ${e.url}/\\.api/llm: GET /models failed with HTTP 404: `));
    expect(lines[0]).toContain('set DSBENCH_JUDGE_ENDPOINT');
    expect(lines[0]).toContain('judge.during: never');
    expect(lines[0]).toContain('dsbench grade');
    expect(lines[0]).toContain('--if-judge-unavailable continue');
    expect(e.counters()['legacy.create'] ?? 0).toBe(0);
  });

  it('with --if-judge-unavailable continue, says so once and records the judged checks as not graded, never passed', async () => {
    const { e, target, env } = await gated();
    const db = path.join(tempDir(), 'runs.db');
    const exit = await run([writeSuite(SUITE), ...target, '--db', db, '--quiet', '--if-judge-unavailable', 'continue'], env);
    expect(exit.code).toBe(ExitCode.expectationsFailed);
    expect(exit.stderr.match(/running without the judge/g)).toHaveLength(1);
    expect(e.counters()['legacy.create']).toBe(1);
    expect(e.counters()['llm.chat'] ?? 0).toBe(0);
    const [row] = grades(db);
    expect(row).toMatchObject({ status: 'error', passed: 0, error: expect.stringMatching(/^the judge is unavailable: judge at .*HTTP 404/) });

    // `dsbench grade` on the same gated judge refuses before replacing anything ...
    const refused = await grade(['1', '--db', db, ...target], env);
    expect(refused.code).toBe(ExitCode.usage);
    expect(refused.stderr).toMatch(/^dsbench: not grading run 1: judge at .*GET \/models failed with HTTP 404: .*set DSBENCH_JUDGE_ENDPOINT/);
    expect(grades(db)).toEqual([row]);
    // ... and grades with another judge.
    const other = await emulator({ timeScale: 0.001, corpus: { dir: corpusDir(FILES) } }, CORPUS_SEARCH);
    const graded = await grade(['1', '--db', db, ...target], { ...env, DSBENCH_JUDGE_ENDPOINT: `${other.url}/.api/llm`, DSBENCH_JUDGE_TOKEN: TOKEN });
    expect(graded.code).toBe(ExitCode.ok);
    expect(grades(db)).toEqual([expect.objectContaining({ status: 'graded', passed: 1 })]);
  });

  it('asks for the model list once per run and once per grade: the model the check found is the one it grades with', async () => {
    const e = await emulator({ timeScale: 0.001, corpus: { dir: corpusDir(FILES) } }, CORPUS_SEARCH);
    const db = path.join(tempDir(), 'runs.db');
    const env = { DSBENCH_TOKEN_EMU: TOKEN };
    const exit = await run([writeSuite(SUITE), '--target', `emu=${e.url}`, '--db', db, '--quiet'], env);
    expect(exit.code, exit.stderr).toBe(ExitCode.ok);
    expect(e.counters()['llm.chat']).toBe(1);
    expect(e.counters()['llm.models']).toBe(1);
    const graded = await grade(['1', '--db', db, '--target', `emu=${e.url}`], env);
    expect(graded.code, graded.stderr).toBe(ExitCode.ok);
    expect(e.counters()['llm.models']).toBe(2);
  });

  it('names a model the judge does not serve, and a token it refuses', async () => {
    const e = await emulator({ timeScale: 0.001, corpus: { dir: corpusDir(FILES) } }, CORPUS_SEARCH);
    const db = path.join(tempDir(), 'runs.db');
    const args = [writeSuite(SUITE), '--target', `emu=${e.url}`, '--db', db, '--quiet'];
    const model = await run(args, { DSBENCH_TOKEN_EMU: TOKEN, DSBENCH_JUDGE_MODEL: 'anthropic::2024-10-22::claude-nope' });
    expect(model.code).toBe(ExitCode.usage);
    expect(model.stderr).toMatch(/model "anthropic::2024-10-22::claude-nope" is not served \(GET \/models lists anthropic::2024-10-22::claude-sonnet-4-latest, /);
    const token = await run(args, { DSBENCH_TOKEN_EMU: TOKEN, DSBENCH_JUDGE_ENDPOINT: `${e.url}/.api/llm`, DSBENCH_JUDGE_TOKEN: 'sgp_not_a_token' });
    expect(token.code).toBe(ExitCode.unreachable);
    expect(token.stderr).toMatch(/HTTP 401: .*; check DSBENCH_JUDGE_TOKEN/);
    expect(e.counters()['legacy.create'] ?? 0).toBe(0);
  });
});
