import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { extractCitations } from '../../src/grade/links.js';
import { ADMIN, FAST, ask, emulator, legacySettled, stopAll } from './helpers.js';

afterEach(stopAll);

const MODEL = 'anthropic::2024-10-22::claude-sonnet-4-latest';

async function chat(url: string, body: unknown, token: string | null = ADMIN) {
  const res = await fetch(`${url}/.api/llm/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token && { Authorization: `token ${token}` }) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined };
}

const user = (content: string) => ({ role: 'user', content });
const link = (base: string, line: number) => `[retry-handler.js](${base}/github.com/npm/undici/-/blob/lib/handler/retry-handler.js#L${line})`;

describe('LLM API', () => {
  it('lists its models and needs a token', async () => {
    const e = await emulator(FAST);
    const res = await fetch(`${e.url}/.api/llm/models`, { headers: { Authorization: `Bearer ${ADMIN}` } });
    const body = (await res.json()) as { data: Array<{ id: string }> };
    expect(body.data.map((m) => m.id)).toContain(MODEL);
    expect((await chat(e.url, { model: MODEL, messages: [user("hi")] }, null)).status).toBe(401);
  });

  it('enforces the platform restrictions', async () => {
    const e = await emulator(FAST);
    const system = await chat(e.url, { model: MODEL, messages: [{ role: 'system', content: 'x' }, user('hi')] });
    expect(system.status).toBe(400);
    expect(system.text).toMatch(/system role is not supported/);
    expect((await chat(e.url, { model: MODEL, messages: [user('a'), user('b')] })).text).toMatch(/alternate/);
    expect((await chat(e.url, { model: MODEL, messages: [user('a'), { role: 'assistant', content: 'b' }] })).text).toMatch(/last message/);
    expect((await chat(e.url, { model: MODEL, messages: [user('a')], max_tokens: 4001 })).text).toMatch(/at most 4000/);
    expect((await chat(e.url, { model: 'nope::1::x', messages: [user('a')] })).text).toMatch(/model "nope::1::x" is not available/);
    expect((await chat(e.url, { model: MODEL, messages: [user('a')], max_tokens: 4000 })).status).toBe(200);
  });

  it('scores by the terms the rubric names and by citations that resolve', async () => {
    const e = await emulator(FAST);
    const prompt = (answer: string) => `<rubric>\nNames \`RetryHandler\` and retryAfter.\n</rubric>\n<answer>\n${answer}\n</answer>`;
    const good = await chat(e.url, { model: MODEL, messages: [user(prompt(`RetryHandler honours retryAfter, see ${link(e.url, 10)}`))], temperature: 0, seed: 1 });
    expect(good.status).toBe(200);
    expect(good.json.usage.total_tokens).toBeGreaterThan(0);
    expect(JSON.parse(good.json.choices[0].message.content)).toMatchObject({ score: 1, pass: true });
    const bad = await chat(e.url, { model: MODEL, messages: [user(prompt(`RetryHandler, see ${link(e.url, 999_999)}`))] });
    const verdict = JSON.parse(bad.json.choices[0].message.content);
    expect(verdict.score).toBe(0.35);
    expect(verdict.pass).toBe(false);
    expect(verdict.reasons).toEqual(['names 1 of 2 expected terms (missing: retryAfter)', '0 of 1 citations resolve']);
    const prose = await chat(e.url, { model: MODEL, messages: [user(`[[judge-prose]] ${prompt('x')}`)] });
    expect(() => JSON.parse(prose.json.choices[0].message.content)).toThrow();
  });

  it('answers a pairwise prompt with the better answer', async () => {
    const e = await emulator(FAST);
    const content = '<rubric>`RetryHandler`</rubric>\n<answer_a>\nnothing\n</answer_a>\n<answer_b>\nRetryHandler\n</answer_b>';
    const reply = await chat(e.url, { model: MODEL, messages: [user(content)] });
    expect(JSON.parse(reply.json.choices[0].message.content).winner).toBe('B');
  });

  it('suffers injected faults like every route', async () => {
    const e = await emulator(FAST);
    e.injectFault({ operation: 'llm.chat', kind: '429', retryAfterSeconds: 3 });
    const limited = await chat(e.url, { model: MODEL, messages: [user('a')] });
    expect(limited.status).toBe(429);
    expect(e.faultCounters()).toEqual({ 'llm.chat.429': 1 });
  });
});

describe('raw files', () => {
  const raw = (url: string, path: string) => fetch(`${url}${path}`, { headers: { Authorization: `token ${ADMIN}` } });

  it('serves a file, a folder and the root, and 404 for what does not exist', async () => {
    const e = await emulator(FAST);
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
