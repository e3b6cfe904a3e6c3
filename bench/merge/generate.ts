// Writes the shards of one synthetic run through the store's own recorder, as `dsbench run --shard i/n`
// would: the plan split by the real shardPlan, every item recorded with a turn (answer, two sources, a
// suggested follow-up, stats), its expectations and its end; 1 item in 100 is a search. Calls are grouped
// in transactions of 5,000 items (the recorder's own transactions become savepoints inside them): one
// commit per call would take an hour at this volume, and what is measured is the merge, not this.
import type { ResolvedQuestion, ResolvedSearch } from '../../src/config/resolve-suite.js';
import type { WorkItem } from '../../src/runner/plan.js';
import type { TargetInfo } from '../../src/model/run.js';
import { runGroupId, shardPlan } from '../../src/runner/shard.js';
import { openStore } from '../../src/store/store.js';

const TARGETS: TargetInfo[] = [{ name: 'prod', url: 'https://sg.example.com', api: 'legacy', emulated: false }];
const SUITE_HASH = 'ab'.repeat(32);
const QUESTION = { followups: [] } as unknown as ResolvedQuestion;
const SEARCH = { query: 'retry count:all' } as unknown as ResolvedSearch;

/** The whole plan: `total` items on one target, questions with 1 in 100 a search. */
export function syntheticPlan(total: number): WorkItem[] {
  const items: WorkItem[] = [];
  for (let i = 0; i < total; i++) {
    const search = i % 100 === 99;
    const id = `${search ? 's' : 'q'}${i}`;
    const common = { key: `prod/${search ? 'search' : 'question'}/${id}/0`, target: 'prod', suiteItemId: id, repeat: 0, tags: ['bench', `area-${i % 7}`] };
    items.push(search ? { ...common, kind: 'search', search: SEARCH } : { ...common, kind: 'question', question: QUESTION });
  }
  return items;
}

export function writeShard(file: string, whole: WorkItem[], index: number, count: number): number {
  const items = shardPlan(whole, { index, count });
  const store = openStore(file);
  const r = store.recorder;
  const label = 'bench-nightly';
  const runId = r.createRun(
    {
      label: 'nightly',
      suiteName: 'bench',
      suitePath: 'suites/bench.yaml',
      suiteHash: SUITE_HASH,
      dsbenchVersion: '0.1.0',
      options: { api: 'legacy', concurrency: 8 },
      startedAt: '2026-11-23T03:00:00.000Z',
      group: { id: runGroupId({ suiteHash: SUITE_HASH, targets: TARGETS, label }), label, shardIndex: index, shardCount: count },
    },
    TARGETS,
    items,
  );
  const at = '2026-11-23T03:10:00.000Z';
  const batch = store.db.transaction((slice: WorkItem[]) => {
    for (const item of slice) {
      r.itemStarted(runId, item.key, at);
      if (item.kind === 'question') {
        r.recordTurn(runId, item.key, 0, {
          state: 'completed',
          text: `Where is ${item.suiteItemId} implemented, and what calls it?`,
          questionId: `q-${item.position}`,
          title: `About ${item.suiteItemId}`,
          answer: `${item.suiteItemId} is implemented in src/${item.suiteItemId}.ts; it is called by the retry handler and the dispatcher. `.repeat(4),
          sources: [
            { type: 'File', link: `/github.com/org/repo/-/blob/src/${item.suiteItemId}.ts`, label: `${item.suiteItemId}.ts` },
            { type: 'Repository', link: '/github.com/org/repo', label: 'github.com/org/repo' },
          ],
          suggestedFollowups: [`Who calls ${item.suiteItemId}?`],
          stats: { timeMillis: 21000, toolCalls: 3, totalInputTokens: 12000, cachedTokens: 9000, cacheCreationInputTokens: 1000, promptTokens: 11000, completionTokens: 400, totalTokens: 12400, credits: 2 },
          sentAt: at,
          observedEndAt: at,
          serverMs: 21000,
          serverMsSource: 'stats.time_millis',
          wallMs: 21700,
          polls: 5,
        });
      } else {
        r.recordSearch(runId, item.key, { query: 'retry count:all', params: {}, verdict: 'complete', matchCount: 40, counted: 40, countedByType: { content: 40 }, repositories: 3, files: 7, exhaustive: true, durationMs: 300, wallMs: 320, skipped: [] });
      }
      r.recordExpectations(runId, item.key, [{ name: 'contains', passed: (item.position ?? 0) % 50 !== 0, reason: 'expected "retry" in the answer' }]);
      r.itemFinished(runId, item.key, item.kind === 'question' ? 'completed' : 'complete', at);
    }
  });
  for (let i = 0; i < items.length; i += 5000) batch(items.slice(i, i + 5000));
  r.setRunStatus(runId, 'completed', '2026-11-23T04:00:00.000Z');
  store.close();
  return items.length;
}
