import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Corpus } from '../../../src/emulator/corpus/index.js';
import { amount } from '../../../src/emulator/corpus/skipped.js';
import {
  finalProgress,
  json,
  makeCorpusDir,
  openCorpus,
  removeDir,
  slowCorpus as slowCorpusOf,
  startServer,
  stream,
  type StreamEvent,
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
const names = (events: StreamEvent[]) => events.map((e) => e.event);

const slowCorpus = (ms: number) => slowCorpusOf(dir, () => ms);

describe('event order like the server', () => {
  it('sends filters and the first batch at once, then filters, matches and progress on each changed flush', async () => {
    const unbatched = await startServer({ corpus }, { flushBytes: 1, flushIntervalMs: 60_000 });
    try {
      const { events } = await stream(unbatched.url, { q: 'count:all retry' });
      const order = names(events);
      // As in the documentation's example, the first batch carries no progress.
      expect(order.slice(0, 5)).toEqual(['filters', 'matches', 'filters', 'matches', 'progress']);
      // Every later batch before the ending is followed by a progress: the match count changed.
      order.forEach((name, i) => {
        if (name === 'matches' && i > 1 && i < order.lastIndexOf('filters')) expect(order[i + 1]).toBe('progress');
      });
      const counts = events.filter((e) => e.event === 'progress').map((e) => json(e).matchCount);
      expect(counts).toEqual([...counts].sort((a, b) => a - b));
      // Every batch went out at once (flushBytes 1), so the ending has no matches left to send.
      expect(order.slice(-3)).toEqual(['filters', 'progress', 'done']);
    } finally {
      await unbatched.close();
    }
  });

  it('shows exclusions at the first tick when no match came yet, as in the documentation example', async () => {
    const slow = await startServer({ corpus: await slowCorpus(60) }, { flushIntervalMs: 10 });
    try {
      const { events } = await stream(slow.url, { q: 'count:1 retry' });
      const order = names(events);
      expect(order.slice(0, 4)).toEqual(['filters', 'progress', 'filters', 'matches']);
      expect(json<any[]>(events[0]!)).toEqual([{ value: 'archived:yes', label: 'Include archived repos', count: 1, exhaustive: true, kind: 'utility' }, expect.objectContaining({ value: 'fork:yes' })]);
      expect(json(events[1]!)).toMatchObject({ done: false, matchCount: 0, skipped: [{ reason: 'repository-fork' }, { reason: 'excluded-archive' }] });
      expect(order.slice(-3)).toEqual(['filters', 'progress', 'done']);
    } finally {
      await slow.close();
    }
  });

  it('sends no progress before the end of a search that excludes nothing and finds nothing', async () => {
    expect(names((await search('repo:acme zzzz')).events)).toEqual(['progress', 'done']);
  });

  it('sends keep-alive progress on the server interval scaled by timeScale, none unscaled', async () => {
    const slow = await slowCorpus(15);
    // 5 s of emulated time is 5 ms of real time at 0.001; the search takes well over 50 ms.
    const scaled = await startServer({ corpus: slow }, { timeScale: 0.001 });
    const unscaled = await startServer({ corpus: slow });
    try {
      const keepAlives = (events: StreamEvent[]) => {
        const progress = events.filter((e) => e.event === 'progress').map((e) => json(e));
        return progress.slice(1, -1).filter((p, i) => p.matchCount === progress[i]!.matchCount);
      };
      expect(keepAlives((await stream(scaled.url, { q: 'zzzz' })).events).length).toBeGreaterThan(2);
      expect(keepAlives((await stream(unscaled.url, { q: 'zzzz' })).events)).toEqual([]);
    } finally {
      await scaled.close();
      await unscaled.close();
    }
  });
});

describe('skipped like the server', () => {
  it('orders limit, fork, archived, display with the server texts', async () => {
    const progress = finalProgress((await search('count:2 retry', { display: '1' })).events);
    expect(progress.skipped.map((s: any) => s.reason)).toEqual(['shard-match-limit', 'repository-fork', 'excluded-archive', 'display']);
    expect(progress.skipped[0]).toEqual({
      reason: 'shard-match-limit',
      title: 'result limit hit',
      message:
        'Not all results have been returned due to hitting a match limit. Sourcegraph has limits for the number of results returned from a line, document and repository.',
      severity: 'info',
      suggested: { title: 'increase limit', queryExpression: 'count:1000' },
    });
    expect(progress.skipped[1]).toEqual({
      reason: 'repository-fork',
      title: '1 forked',
      message: 'By default we exclude forked repositories. Include them with `fork:yes` in your query.',
      severity: 'info',
      suggested: { title: 'include forked', queryExpression: 'fork:yes' },
    });
    expect(progress.skipped[3]).toEqual({
      reason: 'display',
      title: 'display limit hit',
      message: 'We only display 1 result even if your search returned more results. To see all results, use our CLI.',
      severity: 'info',
    });
  });

  it('names the repositories a timeout left out', async () => {
    // Each repository or file examined costs a quarter of the timeout, so it strikes mid-search.
    const late = await startServer({ corpus }, { defaultTimeoutMs: 1_000, searchStepMs: 250 });
    try {
      const progress = finalProgress((await stream(late.url, { q: 'count:all retry' })).events);
      const timeout = progress.skipped.find((s: any) => s.reason === 'shard-timeout');
      expect(timeout).toMatchObject({ severity: 'warn', title: expect.stringMatching(/^\d+ timed out$/) });
      expect(timeout.message).toMatch(/could not be searched in time\. Try searching again or reducing the scope of your query with `repo:`/);
      expect(timeout.message).toMatch(/`github\.com\/acme\/(app|lib)`/);
      expect(timeout).not.toHaveProperty('suggested');
    } finally {
      await late.close();
    }
  });

  it('writes counts as the server does', () => {
    expect([amount(999), amount(1234), amount(1005), amount(12_345)]).toEqual(['999', '1,234', '1,005', '12k']);
  });
});

describe('filters like the server', () => {
  it('labels utility filters and proposes only the fixed exclusions', async () => {
    const special = makeCorpusDir({
      'github.com/acme/go/pkg/a_test.go': 'func TestRetry() {}\n',
      'github.com/acme/go/vendor/x/y.go': 'func retry() {}\n',
      'github.com/acme/go/dist/app.min.js': 'retry()\n',
      'github.com/acme/go/main.go': 'func main() { retry() }\n',
      'github.com/old/archive/old.js': 'function retry() {}\n',
      'github.com/forks/copy/copy.js': 'const retry = 1;\n',
    });
    const own = await startServer({ corpus: await openCorpus(special) });
    try {
      const { events } = await stream(own.url, { q: 'count:all retry' });
      const last = json<any[]>(events.filter((e) => e.event === 'filters').at(-1)!);
      expect(last.slice(0, 2)).toEqual([
        { value: 'archived:yes', label: 'Include archived repos', count: 1, exhaustive: true, kind: 'utility' },
        { value: 'fork:yes', label: 'Include forked repos', count: 1, exhaustive: true, kind: 'utility' },
      ]);
      const files = last.filter((f) => f.kind === 'file').map((f) => [f.value, f.label]);
      expect(files.sort()).toEqual([
        ['-file:(^|/)vendor/', 'Exclude Go vendor'],
        ['-file:\\.min\\.js$', 'Exclude minified JavaScript'],
        ['-file:_test\\.go$', 'Exclude Go tests'],
      ]);
      expect(last.filter((f) => f.kind === 'lang').map((f) => f.value).sort()).toEqual(['lang:go', 'lang:javascript']);
    } finally {
      await own.close();
      removeDir(special);
    }
  });
});
