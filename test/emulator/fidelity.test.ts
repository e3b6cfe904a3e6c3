/**
 * Every real payload in test/fixtures/real/ against what the emulator produces for the equivalent
 * request: keys, nesting, omitted fields, key order and types. A change that drifts from the platform
 * fails here. Known, documented gaps (docs/emulator.md) are listed per case, never silently skipped.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { makeCorpusDir, parseEvents, removeDir, type StreamEvent } from './stream/harness.js';
import { ADMIN, ask, emulator, FAST, legacy, legacySettled, rpc, stopAll, tinySearch, versionedSettled } from './helpers.js';

const ROOT = path.join(import.meta.dirname, '..', 'fixtures', 'real');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const fixture = (file: string): any => JSON.parse(read(file));
const sse = (file: string): StreamEvent[] => parseEvents(read(file));

type Mode = 'exact' | 'subset';
interface CompareOptions {
  /** exact: the same keys; subset: the fixture's keys must be there, ours may have more (mock payloads). */
  mode: Mode;
  /** Paths (`a.b.*.c`, `*` for any index) where a difference is a documented gap. */
  ignore?: string[];
  /** For payloads written by hand in a third party's tests, whose key order is not the server's. */
  anyOrder?: boolean;
}

const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const camel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** An array element of the fixture matched by its discriminating field, else the first. */
function counterpart(real: any[], ours: any): any {
  for (const key of ['reason', 'value', 'type']) {
    if (ours && typeof ours === 'object' && key in ours) {
      const found = real.find((r) => r && typeof r === 'object' && r[key] === ours[key]);
      if (found !== undefined || key !== 'type') return found;
    }
  }
  return real[0];
}

/** Differences between a real payload and ours, as readable paths; empty when the shapes agree. */
function differences(real: unknown, ours: unknown, options: CompareOptions, at = ''): string[] {
  const ignored = (options.ignore ?? []).some((p) => new RegExp(`^${p.replace(/\./g, '\\.').replace(/\*/g, '[^.]+')}$`).test(at));
  if (ignored) return [];
  if (kind(real) !== kind(ours)) return [`${at || '(root)'}: ${kind(real)} on the platform, ${kind(ours)} here`];
  if (Array.isArray(real) && Array.isArray(ours)) {
    if (real.length === 0 || ours.length === 0) return [];
    return ours.flatMap((item, i) => {
      const other = counterpart(real, item);
      return other === undefined ? [] : differences(other, item, options, `${at}.${i}`.replace(/^\./, ''));
    });
  }
  if (kind(real) !== 'object') return [];
  const r = real as Record<string, unknown>;
  const o = ours as Record<string, unknown>;
  const out: string[] = [];
  const child = (key: string) => (at ? `${at}.${key}` : key);
  for (const key of Object.keys(r)) {
    if (!(key in o)) {
      if (!(options.ignore ?? []).includes(child(key))) out.push(`${child(key)}: sent by the platform, missing here`);
    } else out.push(...differences(r[key], o[key], options, child(key)));
  }
  if (options.mode === 'exact') {
    for (const key of Object.keys(o)) {
      if (!(key in r) && !(options.ignore ?? []).includes(child(key))) out.push(`${child(key)}: not sent by the platform`);
    }
  }
  const common = Object.keys(o).filter((k) => k in r);
  const realOrder = Object.keys(r).filter((k) => k in o);
  if (!options.anyOrder && common.join() !== realOrder.join()) out.push(`${at || '(root)'}: key order ${common.join(',')} here, ${realOrder.join(',')} on the platform`);
  return out;
}

const same = (real: unknown, ours: unknown, options: CompareOptions = { mode: 'exact' }) =>
  expect(differences(real, ours, options)).toEqual([]);

afterAll(stopAll);

describe('every real fixture is covered', () => {
  it('lists no fixture file this test does not compare', () => {
    const all = ['legacy', 'versioned', 'stream', 'progress-golden'].flatMap((d) => readdirSync(path.join(ROOT, d)).map((f) => `${d}/${f}`));
    const covered = read('../../emulator/fidelity.test.ts').match(/'(legacy|versioned|stream|progress-golden)\/[^']+'/g)!.map((s) => s.slice(1, -1));
    expect(all.filter((f) => !covered.includes(f))).toEqual([]);
  });
});

describe('legacy API', () => {
  let e: RunningEmulator;
  beforeAll(async () => {
    e = await emulator(FAST, { search: tinySearch });
  });

  it('legacy/docs-create.json: the create reply', async () => {
    same(fixture('legacy/docs-create.json'), await ask(e, 'Does github.com/sourcegraph/sourcegraph have a README?'));
  });

  it('legacy/docs-get-completed.json: a completed conversation', async () => {
    const { id } = await ask(e, 'Does github.com/sourcegraph/sourcegraph have a README?');
    same(fixture('legacy/docs-get-completed.json'), (await legacySettled(e, id)).json);
  });

  it('legacy/docs-question-error-snippet.json: a failed question stays completed with error {title, kind, message, details}', async () => {
    const { id } = await ask(e, 'Too big [[token-limit]]');
    const question = (await legacySettled(e, id)).json.questions[0];
    const real = fixture('legacy/docs-question-error-snippet.json');
    same(real, question, { mode: 'subset' });
    expect(question.status).toBe(real.status);
    expect(question.error).toMatchObject({ title: real.error.title, kind: real.error.kind });
  });

  it('legacy/early-doc-followup-question.json: the follow-up reply is the Question, and completes in its shape', async () => {
    const { id } = await ask(e, 'What is in the repository?');
    await legacySettled(e, id);
    const real = fixture('legacy/early-doc-followup-question.json');
    const reply = await legacy(e, 'POST', `/${id}/questions`, { conversation_id: id, question: real.question });
    // While processing it carries what the create reply's question carries (turns, no answer yet).
    same(fixture('legacy/docs-create.json').questions[0], reply.json);
    const completed = (await legacySettled(e, id)).json.questions[1];
    // Documented gaps: the guide shows `turns: []` on a completed question, the documentation none; its
    // answer cites no repository, so it has no sources, which the documentation's completed question has.
    same(real, completed, { mode: 'exact', ignore: ['turns', 'sources'] });
  });
});

describe('versioned API', () => {
  let e: RunningEmulator;
  beforeAll(async () => {
    e = await emulator({ ...FAST, quota: { limit: 0, resetTime: '2025-10-01T00:00:00Z' } }, { search: tinySearch });
  });
  const create = (text: string) => rpc(e, 'CreateConversation', { parent: 'users/~self', conversation: { questions: [{ input: [{ question: { text } }] }] } });

  it('versioned/srccli-create.json: the create reply', async () => {
    const real = fixture('versioned/srccli-create.json');
    const ours = (await create('What is Deep Search?')).json;
    // The CLI's fixture is a mock with fewer fields; what it has must be here, in its order.
    same(real, ours, { mode: 'subset' });
  });

  it('versioned/docs-error-state-derived.json: a quota error is state.error {code, message, retryTime}', async () => {
    const ours = (await versionedSettled(e, (await create('Refused?')).json.name)).json;
    const real = fixture('versioned/docs-error-state-derived.json');
    // The docs write retry_time; protobuf-JSON sends retryTime.
    const state = { error: Object.fromEntries(Object.entries(real.state.error).map(([k, v]) => [camel(k), v])) };
    same({ ...real, state }, ours, { mode: 'subset' });
    expect(ours.state.error).toEqual({ code: 'ERROR_QUOTA_EXCEEDED', message: expect.any(String), retryTime: '2025-10-01T00:00:00Z' });
  });

  it('versioned/srccli-get-completed.json and srccli-addquestion.json: a completed conversation and a new question', async () => {
    const unlimited = await emulator(FAST, { search: tinySearch });
    const created = await rpc(unlimited, 'CreateConversation', { conversation: { questions: [{ input: [{ question: { text: 'How?' } }] }] } });
    same(fixture('versioned/srccli-get-completed.json'), (await versionedSettled(unlimited, created.json.name)).json, { mode: 'subset' });
    const added = await rpc(unlimited, 'AddConversationQuestion', { parent: created.json.name, question: { input: [{ question: { text: 'What calls this code?' } }] } });
    same(fixture('versioned/srccli-addquestion.json'), added.json, { mode: 'subset' });
  });

  it('versioned/srccli-connect-error-400.json: a Connect error body', async () => {
    const created = await create('Anything');
    const refused = await rpc(e, 'AddConversationQuestion', { parent: created.json.name, question: { input: [{ question: { text: '' } }] } });
    expect(refused.status).toBe(400);
    const real = fixture('versioned/srccli-connect-error-400.json');
    same(real, refused.json);
    expect(refused.json.code).toBe(real.code);
  });
});

describe('versioned API, against real replies of a public instance', () => {
  let e: RunningEmulator;
  beforeAll(async () => {
    e = await emulator(FAST, { search: tinySearch });
  });
  const settled = async (text: string) => {
    const created = await rpc(e, 'CreateConversation', { parent: 'users/~self', conversation: { questions: [{ input: [{ question: { text } }] }] } });
    return (await versionedSettled(e, created.json.name)).json;
  };
  const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
  const SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

  /** The forms every real reply has: checked on the fixture too, so a wrong pattern cannot pass. */
  const realForms = (reply: any, host: string) => {
    expect(reply.name).toMatch(/^users\/\d+\/conversations\/\d+$/);
    expect(reply.url).toMatch(new RegExp(`^${host.replace(/[.]/g, '\\.')}/deepsearch/${UUID}$`));
    for (const time of [reply.createTime, reply.updateTime, ...reply.questions.map((q: any) => q.createTime)]) expect(time).toMatch(SECONDS);
    expect(reply.questions[0].createTime).toBe(reply.createTime);
  };

  // Keys were re-sorted by the client that recorded them: their order is not the server's.
  const compared = { mode: 'exact', anyOrder: true } as const;

  it.each(['versioned/real-0010023c.json', 'versioned/real-84c59cab.json'])('%s: a completed conversation, key for key', async (file) => {
    const real = fixture(file);
    const ours = await settled('Where is retryPolicy implemented?');
    same(real, ours, compared);
    realForms(real, 'https://demo.sourcegraph.com');
    realForms(ours, e.url);
  });

  it('versioned/real-9fd0a6d7.json: ERROR_INTERNAL past the output limit keeps its partial answer', async () => {
    const real = fixture('versioned/real-9fd0a6d7.json');
    const ours = await settled('Where is retryPolicy implemented? [[output-limit]]');
    same(real, ours, compared);
    realForms(ours, e.url);
    expect(ours.state.error.code).toBe('ERROR_INTERNAL');
    expect(ours.state.error.message).toBe(real.state.error.message);
    expect(ours.questions[0].answer[0].markdown.text.length).toBeGreaterThan(0);
  });

  it('versioned/real-82694363.json: ERROR_TOKEN_LIMIT_EXCEEDED has no answer key and no retryTime', async () => {
    const real = fixture('versioned/real-82694363.json');
    const ours = await settled('Where is retryPolicy implemented? [[token-limit]]');
    same(real, ours, compared);
    realForms(ours, e.url);
    expect(ours.state).toEqual(real.state);
    expect('answer' in ours.questions[0]).toBe(false);
  });

  it('names carry the numeric user id whatever parent the create named, and ids increase', async () => {
    const first = (await rpc(e, 'CreateConversation', { parent: 'users/~self', conversation: { questions: [{ input: [{ question: { text: 'One?' } }] }] } })).json;
    const second = (await rpc(e, 'CreateConversation', { conversation: { questions: [{ input: [{ question: { text: 'Two?' } }] }] } })).json;
    expect(first.name).toMatch(/^users\/1\/conversations\/\d+$/);
    const id = (name: string) => Number(name.split('/').pop());
    expect(id(second.name)).toBeGreaterThan(id(first.name));
    const listed = (await rpc(e, 'ListConversationSummaries', { parent: 'users/~self' })).json.conversationSummaries.map((c: any) => c.name);
    expect(listed).toContain(first.name);
  });
});

describe('search stream', () => {
  let e: RunningEmulator;
  let dir: string;
  beforeAll(async () => {
    dir = makeCorpusDir({
      'github.com/sourcegraph/sourcegraph/cmd/frontend/graphqlbackend/search_results.go':
        'package graphqlbackend\n\n// Results are the results found by the search. It respects the limits set. To\nfunc x() {}\n',
      'github.com/sourcegraph/old/main.go': '// results\n',
      'github.com/sourcegraph/fork/main.go': '// results\n',
    });
    e = await emulator({ corpus: { dir, archived: ['github.com/sourcegraph/old'], forks: ['github.com/sourcegraph/fork'] } });
  });
  afterAll(() => removeDir(dir));

  const search = async (params: Record<string, string>, token: string | null = ADMIN) => {
    const res = await fetch(`${e.url}/.api/search/stream?${new URLSearchParams(params)}`, {
      headers: { Accept: 'text/event-stream', ...(token && { Authorization: `token ${token}` }) },
    });
    const text = await res.text();
    return { status: res.status, text, events: res.headers.get('content-type') === 'text/event-stream' ? parseEvents(text) : [] };
  };
  const data = (events: StreamEvent[], name: string) => events.filter((ev) => ev.event === name).map((ev) => JSON.parse(ev.data));
  const last = (events: StreamEvent[], name: string) => data(events, name).at(-1);

  it('stream/docs-stream-example.sse: the documentation example, event by event', async () => {
    const real = sse('stream/docs-stream-example.sse');
    const ours = (await search({ q: 'count:1 results', v: 'V3' })).events;
    const names = ours.map((ev) => ev.event);
    expect(names[names.indexOf('matches') - 1]).toBe('filters');
    expect(names.slice(-3)).toEqual(real.map((ev) => ev.event).slice(-3));
    expect(ours.at(-1)!.data).toBe(real.at(-1)!.data);
    // Documented gap: no trace (the emulator has no tracing).
    const ignore = ['trace'];
    same(last(real, 'filters'), last(ours, 'filters'), { mode: 'exact', ignore });
    same(last(real, 'progress'), last(ours, 'progress'), { mode: 'exact', ignore });
    // An intermediate progress has the final one's keys but repositoriesCount (order tests cover when it comes).
    same(data(real, 'progress')[0], last(ours, 'progress'), { mode: 'exact', ignore: [...ignore, 'repositoriesCount'] });
    same(last(real, 'matches'), last(ours, 'matches'));
    const [realMatch] = last(real, 'matches');
    const [ourMatch] = last(ours, 'matches');
    expect(ourMatch).toMatchObject({ path: realMatch.path, pathMatches: realMatch.pathMatches, language: 'Go' });
    expect(ourMatch.lineMatches.map((l: any) => [l.line, l.offsetAndLengths])).toEqual(realMatch.lineMatches.map((l: any) => [l.line, l.offsetAndLengths]));
    // The server's texts, exactly.
    const byReason = (p: any) => Object.fromEntries(p.skipped.map((s: any) => [s.reason, s]));
    const realSkipped = byReason(last(real, 'progress'));
    const ourSkipped = byReason(last(ours, 'progress'));
    expect(ourSkipped['shard-match-limit']).toEqual(realSkipped['shard-match-limit']);
    expect(ourSkipped['excluded-archive']).toEqual({ ...realSkipped['excluded-archive'], title: '1 archived' });
    expect(last(ours, 'progress').skipped.map((s: any) => s.reason)).toEqual(['shard-match-limit', 'repository-fork', 'excluded-archive']);
    expect(last(ours, 'filters')[0]).toEqual({ ...last(real, 'filters')[0], count: 1 });
  });

  it('stream/srccli-testsearchstream.sse: chunk matches', async () => {
    const ours = last((await search({ q: 'count:all file:search_results results', cm: 'true' })).events, 'matches');
    const [realContent] = last(sse('stream/srccli-testsearchstream.sse'), 'matches');
    // A mock with fewer fields: what it has must be here, in its order, chunk by chunk.
    same(realContent, ours[0], { mode: 'subset' });
  });

  it('stream/srccli-testdecoder.sse and server-testfrontendclient.sse: the server test events the emulator can produce', async () => {
    const ours = (await search({ q: 'count:all results' })).events;
    const repos = (await search({ q: 'type:repo sourcegraph' })).events;
    const symbols = (await search({ q: 'type:symbol count:all x' })).events;
    for (const file of ['stream/srccli-testdecoder.sse', 'stream/server-testfrontendclient.sse']) {
      const real = sse(file);
      // Documented gaps: these are mocks of old or unit-test payloads. The emulator has no commit search,
      // always sends skipped as an array, `exhaustive` (not the older `limitHit`), chunkMatches only with
      // cm=true, and symbols as a list (a mock's `null` is a file without any).
      const types = new Set(['content', 'path', 'repo', 'symbol']);
      const realMatches = last(real, 'matches').filter((m: any) => types.has(m.type));
      const ourMatches = [...last(ours, 'matches'), ...last(repos.length ? repos : ours, 'matches'), ...last(symbols, 'matches')];
      for (const m of realMatches) {
        const counterpartMatch = ourMatches.find((o: any) => o.type === m.type);
        if (m.type === 'symbol') expect(counterpartMatch, 'a symbol match').toBeDefined();
        if (counterpartMatch) same(m, counterpartMatch, { mode: 'subset', ignore: ['chunkMatches', 'symbols'] });
      }
      same(last(real, 'filters')[0], last(ours, 'filters').at(-1), { mode: 'subset', ignore: ['limitHit'] });
      const realProgress = data(real, 'progress')[0];
      same({ ...realProgress, skipped: [] }, data(ours, 'progress').at(-1), { mode: 'subset' });
      if (real.some((ev) => ev.event === 'alert')) same(last(real, 'alert'), last((await search({ q: '/[/' })).events, 'alert'), { mode: 'subset' });
    }
  });

  it('stream/srccli-testsearchstream.sse: symbol matches', async () => {
    const [realSymbolMatch] = last(sse('stream/srccli-testsearchstream.sse'), 'matches').filter((m: any) => m.type === 'symbol');
    const ours = last((await search({ q: 'type:symbol count:all x' })).events, 'matches');
    expect(ours).toHaveLength(1);
    // The mock's fields, in its order, each symbol too; ours also has repositoryID, commit and each symbol's
    // line, as the current server does.
    same(realSymbolMatch, ours[0], { mode: 'subset' });
    expect(ours[0].symbols).toEqual([
      { url: '/github.com/sourcegraph/sourcegraph/-/blob/cmd/frontend/graphqlbackend/search_results.go#L4:6-4:7', name: 'x', containerName: '', kind: 'FUNCTION', line: 4 },
    ]);
    // The URL's range has the platform's form: #L<line>:<column>-<line>:<column>, 1-based, the name's span.
    expect(realSymbolMatch.symbols[0].url).toMatch(/#L\d+:\d+-\d+:\d+$/);
    const progress = last((await search({ q: 'type:symbol count:all x' })).events, 'progress');
    expect(progress.matchCount).toBe(1);
  });

  it('stream/alert-unable-to-process.sse: an unparsable query', async () => {
    const real = sse('stream/alert-unable-to-process.sse');
    const ours = (await search({ q: '/[/' })).events;
    expect(ours.map((ev) => ev.event)).toEqual(real.map((ev) => ev.event));
    same(JSON.parse(real[0]!.data), JSON.parse(ours[0]!.data));
    expect(JSON.parse(ours[0]!.data).title).toBe(JSON.parse(real[0]!.data).title);
  });

  it('stream/error-no-query-found.sse: an empty query', async () => {
    expect((await search({ q: '' })).text).toBe(read('stream/error-no-query-found.sse'));
  });

  it('stream/http-401-private-mode.txt: no token', async () => {
    const reply = await search({ q: 'results' }, null);
    expect(reply.status).toBe(401);
    expect(reply.text).toBe(read('stream/http-401-private-mode.txt'));
  });

  it('stream/pi-agent-content-progress.sse: a third-party client fixture', async () => {
    const real = sse('stream/pi-agent-content-progress.sse');
    const ours = (await search({ q: 'count:1 results' })).events;
    same(last(real, 'matches')[0], last(ours, 'matches')[0], { mode: 'subset', anyOrder: true });
    same(last(real, 'progress'), last(ours, 'progress'), { mode: 'subset', anyOrder: true });
  });

  it.each([
    'progress-golden/all-v1.json',
    'progress-golden/all-v2.json',
    'progress-golden/timedout100.json',
    'progress-golden/traced.json',
    'progress-golden/zeroresults.json',
  ])('%s: final progress shape', async (file) => {
    const real = fixture(file);
    const ours = last((await search({ q: 'count:1 results' })).events, 'progress');
    const zero = last((await search({ q: 'repo:sourcegraph/sourcegraph$ zzzz' })).events, 'progress');
    // Documented gaps: no trace; repository-missing, repository-cloning and backend-missing never happen
    // in the emulator (every repository is on disk); the golden files are intermediate progress, so
    // without repositoriesCount where the final one has it.
    const ignore = ['trace', 'repositoriesCount'];
    same({ ...real, done: true }, real.skipped.length ? ours : zero, { mode: 'exact', ignore });
    const ourReasons = new Map(ours.skipped.map((s: any) => [s.reason, s]));
    for (const s of real.skipped) {
      const mine: any = ourReasons.get(s.reason);
      if (!mine) continue;
      same(s, mine);
      expect(mine.message).toBe(s.message);
    }
  });
});
