import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Corpus } from '../../src/emulator/corpus/index.js';
import { extractCitations } from '../../src/grade/links.js';
import { ADMIN, FAST, NODE_MODULES, ask, emulator, legacySettled, stopAll } from './helpers.js';

/** Answers in a few real ms, from dsbench's node_modules: the raw files and the judged citations are its. */
const REAL = { ...FAST, corpus: NODE_MODULES };

afterEach(stopAll);

const MODEL = 'anthropic::2024-10-22::claude-sonnet-4-latest';

async function chat(url: string, body: unknown, token: string | null = ADMIN, requestedWith: string | null = 'dsbench 0.1.0') {
  const res = await fetch(`${url}/.api/llm/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token && { Authorization: `token ${token}` }), ...(requestedWith && { 'X-Requested-With': requestedWith }) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', text, json: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined };
}

const user = (content: string) => ({ role: 'user', content });
const link = (base: string, line: number) => `[retry-handler.js](${base}/r/github.com/npm/undici/-/blob/lib/handler/retry-handler.js?L${line})`;
/** What dsbench's judge sends: the platform's handler accepts it. */
const accepted = (content: string) => ({ model: MODEL, messages: [user(content)], max_tokens: 1000, temperature: 0 });

describe('LLM API', () => {
  it('lists its models and needs a token and X-Requested-With', async () => {
    const e = await emulator(REAL);
    const res = await fetch(`${e.url}/.api/llm/models`, { headers: { Authorization: `Bearer ${ADMIN}`, 'X-Requested-With': 'dsbench 0.1.0' } });
    const body = (await res.json()) as { data: Array<{ id: string }> };
    expect(body.data.map((m) => m.id)).toContain(MODEL);
    expect((await chat(e.url, accepted('hi'), null)).status).toBe(401);
    const bare = await chat(e.url, accepted('hi'), ADMIN, null);
    expect([bare.status, bare.type, bare.text]).toEqual([400, 'text/plain; charset=utf-8', 'X-Requested-With header is required\n']);
  });

  it('refuses, in plain text, everything the platform handler refuses', async () => {
    const e = await emulator(REAL);
    const refusals: Array<[string, Record<string, unknown>, number, RegExp]> = [
      ['seed', { seed: 1 }, 400, /^seed is not supported$/],
      ['response_format', { response_format: { type: 'json_object' } }, 400, /^response_format is not supported$/],
      ['stream: true', { stream: true }, 400, /^streaming is not supported$/],
      ['stream_options', { stream_options: { include_usage: true } }, 400, /^stream_options is not supported$/],
      ['n: 2', { n: 2 }, 400, /^n other than 1 is not supported$/],
      ['user', { user: 'me' }, 400, /^user is not supported$/],
      ['service_tier', { service_tier: 'auto' }, 400, /^service_tier is not supported$/],
      ['a system message', { messages: [{ role: 'system', content: 'x' }, user('hi')] }, 400, /^system role is not supported$/],
      ['a model id without provider and version', { model: 'gpt-4o' }, 400, /^model "gpt-4o" is not of the form provider::api-version::model$/],
      ['temperature above 1', { temperature: 1.5 }, 400, /^temperature must be between 0 and 1$/],
      ['max_tokens above the cap', { max_tokens: 4001 }, 400, /^max_tokens must be at most 4000, got 4001$/],
      ['two user messages in a row', { messages: [user('a'), user('b')] }, 400, /alternate/],
      ['a last message from the assistant', { messages: [user('a'), { role: 'assistant', content: 'b' }] }, 400, /last message/],
      ['an unknown well-formed model', { model: 'nope::1::x' }, 500, /model "nope::1::x"/],
    ];
    for (const [what, change, status, message] of refusals) {
      const reply = await chat(e.url, { ...accepted('hi'), ...change });
      expect([what, reply.status, reply.type]).toEqual([what, status, 'text/plain; charset=utf-8']);
      expect(reply.text.trimEnd()).toMatch(message);
    }
    expect((await chat(e.url, { ...accepted('hi'), n: 1, stream: false, max_tokens: 4000 })).status).toBe(200);
    expect(e.counters()['llm.chat']).toBe(refusals.length + 1);
  });

  it('grants 16 tokens to a request without max_tokens: the verdict is cut short', async () => {
    const e = await emulator(REAL);
    const { max_tokens: _, ...body } = accepted('<rubric>\n`RetryHandler`\n</rubric>\n<answer>\nRetryHandler\n</answer>');
    const reply = await chat(e.url, body);
    expect(reply.status).toBe(200);
    expect(reply.json.choices[0].finish_reason).toBe('length');
    expect(reply.json.usage.completion_tokens).toBe(16);
    expect(() => JSON.parse(reply.json.choices[0].message.content)).toThrow();
    const whole = await chat(e.url, accepted('<rubric>\n`RetryHandler`\n</rubric>\n<answer>\nRetryHandler\n</answer>'));
    expect(whole.json.choices[0].finish_reason).toBe('stop');
    expect(JSON.parse(whole.json.choices[0].message.content)).toMatchObject({ pass: true });
  });

  it('answers 404 on every route when gated, and the admin interface switches the gate', async () => {
    const token = 'an-admin-token-of-16-chars';
    const e = await emulator({ ...REAL, llmGated: true, admin: { token } });
    const models = () => fetch(`${e.url}/.api/llm/models`, { headers: { Authorization: `token ${ADMIN}`, 'X-Requested-With': 'dsbench 0.1.0' } });
    expect((await models()).status).toBe(404);
    expect((await chat(e.url, accepted('hi'))).status).toBe(404);
    const open = await fetch(`${e.url}/-/emulator/llm`, { method: 'PATCH', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: '{"gated": false}' });
    expect(await open.json()).toEqual({ gated: false });
    expect((await models()).status).toBe(200);
    expect((await chat(e.url, accepted('hi'))).status).toBe(200);
  });

  it('scores by the terms the rubric names and by citations that resolve', async () => {
    const e = await emulator(REAL);
    const prompt = (answer: string) => `<rubric>\nNames \`RetryHandler\` and retryAfter.\n</rubric>\n<answer>\n${answer}\n</answer>`;
    const good = await chat(e.url, accepted(prompt(`RetryHandler honours retryAfter, see ${link(e.url, 10)}`)));
    expect(good.status).toBe(200);
    expect(good.json.usage.total_tokens).toBeGreaterThan(0);
    expect(JSON.parse(good.json.choices[0].message.content)).toMatchObject({ score: 1, pass: true });
    const bad = await chat(e.url, accepted(prompt(`RetryHandler, see ${link(e.url, 999_999)}`)));
    const verdict = JSON.parse(bad.json.choices[0].message.content);
    expect(verdict.score).toBe(0.35);
    expect(verdict.pass).toBe(false);
    expect(verdict.reasons).toEqual(['names 1 of 2 expected terms (missing: retryAfter)', '0 of 1 citations resolve']);
    const prose = await chat(e.url, accepted(`[[judge-prose]] ${prompt('x')}`));
    expect(() => JSON.parse(prose.json.choices[0].message.content)).toThrow();
  });

  it('answers a pairwise prompt with the better answer', async () => {
    const e = await emulator(REAL);
    const content = '<rubric>`RetryHandler`</rubric>\n<answer_a>\nnothing\n</answer_a>\n<answer_b>\nRetryHandler\n</answer_b>';
    const reply = await chat(e.url, accepted(content));
    expect(JSON.parse(reply.json.choices[0].message.content).winner).toBe('B');
  });

  it('suffers injected faults like every route', async () => {
    const e = await emulator(REAL);
    e.injectFault({ operation: 'llm.chat', kind: '429', retryAfterSeconds: 3 });
    const limited = await chat(e.url, accepted('a'));
    expect(limited.status).toBe(429);
    expect(e.faultCounters()).toEqual({ 'llm.chat.429': 1 });
  });
});

describe('raw files', () => {
  const raw = (url: string, path: string) => fetch(`${url}${path}`, { headers: { Authorization: `token ${ADMIN}` } });

  it('serves a file, a folder and the root, and 404 for what does not exist', async () => {
    const e = await emulator(REAL);
    const file = await raw(e.url, '/github.com/npm/undici/-/raw/lib/handler/retry-handler.js');
    expect(file.status).toBe(200);
    expect(await file.text()).toMatch(/class RetryHandler/);
    expect(await (await raw(e.url, '/github.com/npm/undici/-/raw/lib/handler')).text()).toMatch(/^retry-handler\.js$/m);
    expect(await (await raw(e.url, '/github.com/npm/undici/-/raw/')).text()).toMatch(/^lib\/$/m);
    expect((await raw(e.url, '/github.com/npm/undici/-/raw/lib/nope.js')).status).toBe(404);
    expect((await raw(e.url, '/github.com/npm/nope-nope/-/raw/index.js')).status).toBe(404);
    expect((await raw(e.url, '/github.com/npm/undici/-/raw/../zod/package.json')).status).toBe(404);
    expect(e.counters()['raw.file']).toBeGreaterThanOrEqual(5);
  });

  it('serves a repository at its one commit (or a 7-digit prefix, or HEAD) and 404s any other revision', async () => {
    const e = await emulator(REAL);
    const { commit } = (await (await Corpus.open()).repositories()).find((r) => r.name === 'github.com/npm/undici')!;
    expect(commit).toMatch(/^[0-9a-f]{40}$/);
    for (const revision of [commit, commit.slice(0, 7), 'HEAD']) {
      expect(await (await raw(e.url, `/github.com/npm/undici@${revision}/-/raw/lib/handler/retry-handler.js`)).text()).toMatch(/class RetryHandler/);
    }
    expect(await (await raw(e.url, `/github.com/npm/undici@${commit}/-/raw/lib/handler`)).text()).toMatch(/^retry-handler\.js$/m);
    expect((await raw(e.url, `/github.com/npm/undici@${'0'.repeat(40)}/-/raw/lib/handler/retry-handler.js`)).status).toBe(404);
    expect((await raw(e.url, '/github.com/npm/undici@main/-/raw/lib/handler/retry-handler.js')).status).toBe(404);
  });
});

describe('citations the agent gets wrong', () => {
  it('at badCitationRate 1 every file link with lines cites a missing line or another repository', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dsbench-noise-'));
    const files: Record<string, string> = {
      'github.com/npm/undici/lib/retry-handler.js': 'class RetryHandler {\n}\nmodule.exports = RetryHandler\n',
      'github.com/npm/undici/index.js': 'module.exports.RetryHandler = require("./lib/retry-handler")\n',
      'github.com/npm/zod/index.js': 'export const z = {}\n',
    };
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    const clean = await emulator({ ...FAST, corpus: { dir } });
    const noisy = await emulator({ ...FAST, corpus: { dir }, agent: { badCitationRate: 1 } });
    const question = 'Where is RetryHandler implemented in undici?';
    const answers = await Promise.all(
      [clean, noisy].map(async (e) => {
        const created = await ask(e, question);
        const done = await legacySettled(e, created.id);
        return extractCitations(done.json.questions[0].answer as string).filter((c) => c.kind === 'file' && c.startLine !== undefined);
      }),
    );
    const [good, bad] = answers as [ReturnType<typeof extractCitations>, ReturnType<typeof extractCitations>];
    expect(good.length).toBeGreaterThan(0);
    expect(bad).toHaveLength(good.length);
    bad.forEach((c, i) => {
      const was = good[i]!;
      expect(c.repository !== was.repository || (c.startLine ?? 0) > 100_000).toBe(true);
    });
    rmSync(dir, { recursive: true, force: true });
  });
});
