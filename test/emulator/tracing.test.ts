import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN, emulator, legacy, legacySettled, rpc, stopAll, tinySearch, versionedSettled } from './helpers.js';

afterEach(stopAll);

interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: Array<{ refType: string; spanID: string }>;
  startTime: number;
  duration: number;
}

async function trace(url: string, path: string, token = ADMIN): Promise<{ status: number; json: any }> {
  const res = await fetch(`${url}${path}`, { headers: { Authorization: `token ${token}` } });
  return { status: res.status, json: await res.json() };
}

describe('tracing on request', () => {
  it('a create with X-Sourcegraph-Should-Trace gets X-Trace, X-Trace-Span and X-Trace-URL; its trace holds the agent run and each tool call', async () => {
    const e = await emulator(undefined, { search: tinySearch });
    const created = await legacy(e, 'POST', '', { question: 'Where is retryPolicy defined?' }, ADMIN, { 'X-Sourcegraph-Should-Trace': 'true' });
    expect(created.status).toBe(202);
    const id = created.headers.get('x-trace')!;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(created.headers.get('x-trace-span')).toMatch(/^[0-9a-f]{16}$/);
    expect(created.headers.get('x-trace-url')).toBe(`/-/debug/jaeger/trace/${id}`);
    const settled = await legacySettled(e, created.json.id);
    const toolCalls = settled.json.questions[0].stats.tool_calls as number;
    expect(toolCalls).toBeGreaterThan(0);

    const got = await trace(e.url, `/-/debug/jaeger/api/traces/${id}`);
    expect(got.status).toBe(200);
    const [data] = got.json.data as Array<{ traceID: string; spans: JaegerSpan[]; processes: Record<string, unknown> }>;
    expect(data!.traceID).toBe(id);
    const names = data!.spans.map((s) => s.operationName);
    expect(names[0]).toBe('legacy.create');
    expect(names.filter((n) => n === 'deepsearch.agent')).toHaveLength(1);
    expect(names.filter((n) => n === 'tool.search')).toHaveLength(toolCalls);
    expect(names).toContain('model.answer');
    const agent = data!.spans.find((s) => s.operationName === 'deepsearch.agent')!;
    expect(agent.references).toEqual([expect.objectContaining({ refType: 'CHILD_OF', spanID: data!.spans[0]!.spanID })]);
    // Emulated time: the agent's run lasts its server time, in microseconds.
    expect(agent.duration).toBe(settled.json.questions[0].stats.time_millis * 1000);
    for (const s of data!.spans) expect(s.traceID).toBe(id);
  });

  it('?trace=1 asks too (the versioned API); a request that does not ask gets no trace header', async () => {
    const e = await emulator(undefined, { search: tinySearch });
    const plain = await rpc(e, 'CreateConversation', { parent: 'users/-', conversation: { questions: [{ input: [{ question: { text: 'Where is retryPolicy defined?' } }] }] } });
    expect(plain.status).toBe(200);
    for (const h of ['x-trace', 'x-trace-span', 'x-trace-url']) expect(plain.headers.get(h)).toBeNull();
    const res = await fetch(`${e.url}/api/deepsearch.v1.Service/GetConversation?trace=1`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Connect-Protocol-Version': '1', Authorization: `Bearer ${ADMIN}` },
      body: JSON.stringify({ name: plain.json.name }),
    });
    expect(res.status).toBe(200);
    const id = res.headers.get('x-trace')!;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    await versionedSettled(e, plain.json.name);
    const got = await trace(e.url, `/-/debug/jaeger/api/traces/${id}`);
    expect(got.json.data[0].spans.map((s: JaegerSpan) => s.operationName)).toEqual(['versioned.GetConversation']);
    expect((await trace(e.url, '/-/debug/jaeger/api/traces/00000000000000000000000000000bad')).status).toBe(404);
  });
});
