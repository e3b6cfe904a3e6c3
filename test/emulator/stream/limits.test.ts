import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Corpus } from '../../../src/emulator/corpus/index.js';
import {
  countOf,
  finalProgress,
  json,
  makeCorpusDir,
  matchesOf,
  openCorpus,
  removeDir,
  slowCorpus as slowCorpusOf,
  startServer,
  stream,
  type TestServer,
} from './harness.js';

let dir: string;
let corpus: Corpus;
let server: TestServer;

beforeAll(async () => {
  dir = makeCorpusDir();
  corpus = await openCorpus(dir);
  server = await startServer({ corpus });
});

afterAll(async () => {
  await server.close();
  removeDir(dir);
});

const search = (q: string, params: Record<string, string> = {}) => stream(server.url, { q, ...params });
const reasons = (progress: any) => progress.skipped.map((s: any) => s.reason);

describe('count:N', () => {
  it('stops at N matches and suggests count:1000 for a limit of 1', async () => {
    const { events } = await search('count:1 retry');
    const progress = finalProgress(events);
    expect(progress.matchCount).toBe(1);
    expect(matchesOf(events).reduce((n, m) => n + countOf(m), 0)).toBe(1);
    expect(progress.skipped).toContainEqual({
      reason: 'shard-match-limit',
      title: expect.any(String),
      message: expect.any(String),
      severity: 'info',
      suggested: { title: 'increase limit', queryExpression: 'count:1000' },
    });
  });

  it('applies the default limit without count: and cuts the crossing match to fit', async () => {
    const limited = await startServer({ corpus }, { defaultLimit: 3 });
    try {
      const { events } = await stream(limited.url, { q: 'file:long retry' });
      expect(finalProgress(events).matchCount).toBe(3);
      expect(matchesOf(events)[0].lineMatches[0].offsetAndLengths).toHaveLength(3);
      expect(finalProgress(events).skipped.find((s: any) => s.reason === 'shard-match-limit').suggested.queryExpression).toBe('count:1000');
    } finally {
      await limited.close();
    }
  });

  it('does not report a limit when exactly N matches exist, and count:all is exhaustive', async () => {
    expect(reasons(finalProgress((await search('count:1 retry_count')).events))).toEqual(['repository-fork', 'excluded-archive']);
    const all = finalProgress((await search('count:all retry')).events);
    expect(reasons(all)).not.toContain('shard-match-limit');
  });
});

describe('display', () => {
  it('stops sending matches past display but keeps counting', async () => {
    const full = finalProgress((await search('count:all retry')).events).matchCount;
    const { events } = await search('count:all retry', { display: '4' });
    expect(matchesOf(events).reduce((n, m) => n + countOf(m), 0)).toBe(4);
    const progress = finalProgress(events);
    expect(progress.matchCount).toBe(full);
    expect(reasons(progress)).toContain('display');
    expect(reasons(progress)).not.toContain('shard-match-limit');
    expect(progress.skipped.find((s: any) => s.reason === 'display').severity).toBe('info');
  });

  it('differs from count:, which stops the search', async () => {
    const { events } = await search('count:4 retry');
    expect(finalProgress(events).matchCount).toBe(4);
    expect(reasons(finalProgress(events))).toContain('shard-match-limit');
    expect(reasons(finalProgress(events))).not.toContain('display');
  });

  it('adds no display reason when everything fit', async () => {
    expect(reasons(finalProgress((await search('retry_count', { display: '1' })).events))).not.toContain('display');
  });
});

describe('archived and forks', () => {
  const repos = async (q: string) => [...new Set(matchesOf((await search(q)).events).map((m) => m.repository))];

  it('excludes them by default with skipped reasons and utility filters', async () => {
    const { events } = await search('retry');
    expect(await repos('retry')).toEqual(['github.com/acme/app', 'github.com/acme/lib']);
    const progress = finalProgress(events);
    expect(progress.skipped.find((s: any) => s.reason === 'excluded-archive')).toMatchObject({
      severity: 'info',
      suggested: { queryExpression: 'archived:yes' },
    });
    expect(progress.skipped.find((s: any) => s.reason === 'repository-fork')).toMatchObject({ suggested: { queryExpression: 'fork:yes' } });
    const filters = json<any[]>(events.filter((e) => e.event === 'filters').at(-1)!);
    expect(filters.filter((f) => f.kind === 'utility').map((f) => f.value)).toEqual(['archived:yes', 'fork:yes']);
  });

  it('includes them with yes and restricts to them with only', async () => {
    expect(await repos('archived:yes fork:yes retry')).toEqual([
      'github.com/acme/app', 'github.com/acme/lib', 'github.com/forks/copy', 'github.com/old/archive',
    ]);
    expect(await repos('archived:only retry')).toEqual(['github.com/old/archive']);
    expect(await repos('fork:only retry')).toEqual(['github.com/forks/copy']);
    const progress = finalProgress((await search('archived:yes fork:yes retry')).events);
    expect(progress.skipped).toEqual([]);
    expect(progress.repositoriesCount).toBe(4);
  });

  it('does not count repositories that repo: already excluded', async () => {
    expect(reasons(finalProgress((await search('repo:acme retry')).events))).toEqual([]);
  });
});

describe('timeout', () => {
  it('reports shard-timeout when the search runs past timeout:', async () => {
    const slow = await startServer({ corpus }, { searchStepMs: 1000 });
    try {
      const { events } = await stream(slow.url, { q: 'timeout:1500ms retry' });
      const progress = finalProgress(events);
      expect(progress.skipped.find((s: any) => s.reason === 'shard-timeout')).toMatchObject({ severity: 'warn' });
      expect(progress.matchCount).toBeLessThan(finalProgress((await search('retry')).events).matchCount);
      const filters = json<any[]>(events.filter((e) => e.event === 'filters').at(-1)!);
      expect(filters.every((f) => f.exhaustive === false)).toBe(true);
    } finally {
      await slow.close();
    }
  });

  it('counts the timeout in work, not real time: a starved search finishes, exhaustive, and reports its real duration', async () => {
    // Each read takes 100 ms of real time, as on a machine too busy to run the emulator: past timeout:50ms
    // in real time, a few steps of work in search time.
    const starved = await startServer({ corpus: await slowCorpusOf(dir, () => 100) });
    try {
      const { events } = await stream(starved.url, { q: 'repo:acme timeout:50ms count:all retry' });
      const progress = finalProgress(events);
      expect(progress.skipped).toEqual([]);
      expect(progress.matchCount).toBe(finalProgress((await search('repo:acme count:all retry')).events).matchCount);
      expect(json<any[]>(events.filter((e) => e.event === 'filters').at(-1)!).every((f) => f.exhaustive)).toBe(true);
      expect(progress.durationMs).toBeGreaterThanOrEqual(100);
    } finally {
      await starved.close();
    }
  });

  it('times its duration on a monotonic clock: the wall clock stepping back an hour mid-search changes nothing', async () => {
    const realNow = Date.now.bind(Date);
    let stepped = false;
    const steppedCorpus = await slowCorpusOf(dir, () => {
      stepped = true;
      return 30;
    });
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => realNow() - (stepped ? 3_600_000 : 0));
    const server = await startServer({ corpus: steppedCorpus });
    try {
      const { events } = await stream(server.url, { q: 'repo:acme count:all retry' });
      expect(stepped).toBe(true);
      expect(finalProgress(events).durationMs).toBeGreaterThanOrEqual(30);
    } finally {
      clock.mockRestore();
      await server.close();
    }
  });
});

describe('filters', () => {
  it('carries the whole list with counts per kind, exhaustive when no limit was hit', async () => {
    const { events } = await search('count:all retry');
    const all = events.filter((e) => e.event === 'filters').map((e) => json<any[]>(e));
    const last = all.at(-1)!;
    const byValue = Object.fromEntries(last.map((f) => [f.value, f]));
    const total = finalProgress(events).matchCount;
    expect(byValue['repo:^github\\.com/acme/app$']).toMatchObject({ label: 'github.com/acme/app', kind: 'repo', exhaustive: true });
    expect(byValue['repo:^github\\.com/acme/app$'].count + byValue['repo:^github\\.com/acme/lib$'].count).toBe(total);
    expect(byValue['lang:typescript']).toMatchObject({ label: 'TypeScript', kind: 'lang' });
    // The server proposes only its fixed exclusions, none of which this corpus's paths match.
    expect(last.filter((f) => f.kind === 'file')).toEqual([]);
    expect(byValue['type:file']).toMatchObject({ kind: 'type', count: total });
    for (const f of last) expect(Object.keys(f).sort()).toEqual(['count', 'exhaustive', 'kind', 'label', 'value']);
  });

  it('marks filters not exhaustive after a limit and sends none when the list is empty', async () => {
    const limited = json<any[]>((await search('count:1 retry')).events.filter((e) => e.event === 'filters').at(-1)!);
    expect(limited.every((f) => !f.exhaustive)).toBe(true);
    const { events } = await search('repo:acme zzzz');
    expect(events.map((e) => e.event)).toEqual(['progress', 'done']);
  });
});

describe('batching and keep-alive', () => {
  const slowCorpus = (delayMs: (path: string) => number) => slowCorpusOf(dir, delayMs);

  it('sends the first batch at once, then batches by size', async () => {
    const unbatched = await startServer({ corpus }, { flushBytes: 1, flushIntervalMs: 60_000 });
    const batched = await startServer({ corpus }, { flushBytes: 1_000_000, flushIntervalMs: 60_000 });
    try {
      const q = 'count:all retry';
      const one = (await stream(unbatched.url, { q })).events.filter((e) => e.event === 'matches');
      expect(one.every((e) => json<any[]>(e).length === 1)).toBe(true);
      const two = (await stream(batched.url, { q })).events.filter((e) => e.event === 'matches').map((e) => json<any[]>(e).length);
      expect(two).toEqual([1, one.length - 1]);
    } finally {
      await unbatched.close();
      await batched.close();
    }
  });

  it('flushes a waiting batch after flushIntervalMs while the search is busy', async () => {
    const slow = await startServer({ corpus: await slowCorpus((file) => (file === 'native.c' ? 150 : 0)) }, { flushIntervalMs: 20, flushBytes: 1_000_000 });
    try {
      const names = (await stream(slow.url, { q: 'fn' })).events.map((e) => e.event);
      expect(names.filter((n) => n === 'matches')).toHaveLength(2);
      expect(names.slice(names.lastIndexOf('filters'))).toEqual(['filters', 'progress', 'done']);
    } finally {
      await slow.close();
    }
  });

  it('sends progress without repositoriesCount as a keep-alive during a slow search', async () => {
    const slow = await startServer({ corpus: await slowCorpus(() => 15) }, { progressIntervalMs: 10, flushIntervalMs: 10 });
    try {
      const { events } = await stream(slow.url, { q: 'zzzz' });
      const progress = events.filter((e) => e.event === 'progress').map((e) => json(e));
      expect(progress.length).toBeGreaterThan(1);
      for (const p of progress.slice(0, -1)) {
        expect(p.done).toBe(false);
        expect(p).not.toHaveProperty('repositoriesCount');
        expect(p.skipped).toEqual(expect.any(Array));
      }
      expect(progress.at(-1).done).toBe(true);
    } finally {
      await slow.close();
    }
  });
});
