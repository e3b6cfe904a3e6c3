import { afterEach, describe, expect, it } from 'vitest';
import { traceOf } from '../../src/http/trace-headers.js';
import { dsbenchHere } from '../helpers/cli-here.js';
import { ADMIN, FAST, closeAll, emulator } from '../helpers/emulator.js';

afterEach(closeAll);

describe('ask --trace', () => {
  it('asks the instance to trace the create and prints a link that opens the trace of the conversation; the token is not in it', async () => {
    const e = await emulator(FAST);
    const ran = await dsbenchHere(['ask', 'Where is retryPolicy defined?', '--endpoint', e.url, '--trace', '--poll-interval', '20ms'], { SRC_ACCESS_TOKEN: ADMIN });
    expect(ran.code, ran.stderr).toBe(0);
    const url = /^Trace: (\S+)$/m.exec(ran.stdout)?.[1];
    expect(url).toMatch(new RegExp(`^${e.url}/-/debug/jaeger/trace/[0-9a-f]{32}$`));
    expect(url).not.toContain(ADMIN);
    const id = url!.split('/').at(-1)!;
    const res = await fetch(`${e.url}/-/debug/jaeger/api/traces/${id}`, { headers: { Authorization: `token ${ADMIN}` } });
    const names = ((await res.json()) as { data: Array<{ spans: Array<{ operationName: string }> }> }).data[0]!.spans.map((s) => s.operationName);
    expect(names[0]).toMatch(/create/i);
    expect(names).toEqual(expect.arrayContaining(['deepsearch.agent', 'model.answer']));

    const json = await dsbenchHere(['ask', 'Where is retryPolicy defined?', '--endpoint', e.url, '--trace', '--json', '--poll-interval', '20ms'], { SRC_ACCESS_TOKEN: ADMIN });
    expect(JSON.parse(json.stdout).trace).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{32}$/), url: expect.stringContaining('/-/debug/jaeger/trace/') });
    // Without --trace nothing is asked, and nothing is printed.
    const plain = await dsbenchHere(['ask', 'Where is retryPolicy defined?', '--endpoint', e.url, '--poll-interval', '20ms'], { SRC_ACCESS_TOKEN: ADMIN });
    expect(plain.stdout).not.toContain('Trace:');
  });
});

describe('the trace a reply names', () => {
  it('is none without X-Trace, never an error', () => {
    expect(traceOf({}, 'https://sg.example.com')).toBeUndefined();
    expect(traceOf({ 'x-trace': 'abc' }, 'https://sg.example.com')).toEqual({ id: 'abc' });
  });

  it('has its URL made absolute against the endpoint, with no user or password of the endpoint', () => {
    expect(traceOf({ 'x-trace': 'abc', 'x-trace-url': '/-/debug/jaeger/trace/abc' }, 'https://sg.example.com/prefix/')).toEqual({ id: 'abc', url: 'https://sg.example.com/-/debug/jaeger/trace/abc' });
    expect(traceOf({ 'x-trace': 'abc', 'x-trace-url': '-/debug/jaeger/trace/abc' }, 'https://me:sgp_secret@sg.example.com/prefix')).toEqual({ id: 'abc', url: 'https://sg.example.com/prefix/-/debug/jaeger/trace/abc' });
    expect(traceOf({ 'x-trace': 'abc', 'x-trace-url': 'https://jaeger.example.com/trace/abc' }, 'https://sg.example.com')!.url).toBe('https://jaeger.example.com/trace/abc');
  });

  it('keeps the id only, with a note, when X-Trace-URL is not a web URL', () => {
    expect(traceOf({ 'x-trace': 'abc', 'x-trace-url': 'http://[bad' }, 'https://sg.example.com')).toEqual({ id: 'abc', note: expect.stringContaining('not a URL') });
    expect(traceOf({ 'x-trace': 'abc', 'x-trace-url': 'javascript:alert(1)' }, 'https://sg.example.com')).toEqual({ id: 'abc', note: expect.stringContaining('javascript:') });
  });
});
