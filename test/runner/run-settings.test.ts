// A run's settings, resolved once: the API flavour's one rule, what a resume or rerun keeps, and a shard's
// share of its group's limits.
import { describe, expect, it } from 'vitest';
import { resolveSuite } from '../../src/config/resolve-suite.js';
import { SuiteSchema } from '../../src/config/suite.js';
import type { RunHeader } from '../../src/model/run.js';
import { apportion, resolveRunSettings } from '../../src/runner/run-settings.js';

const suite = (api?: 'legacy' | 'versioned') =>
  resolveSuite(SuiteSchema.parse({ name: 's', ...(api && { defaults: { api } }), questions: Array.from({ length: 6 }, (_, i) => ({ id: `q${i}`, question: `Where is h${i}?` })) }));

const header = (api: 'legacy' | 'versioned', options: Record<string, unknown> = {}, group?: RunHeader['info']['group']): RunHeader => ({
  runId: 1,
  status: 'aborted',
  info: { label: undefined, suiteName: 's', suitePath: 's.yaml', suiteHash: 'h', dsbenchVersion: '0', options, startedAt: '2026-01-01T00:00:00Z', group },
  targets: [{ name: 'default', url: 'http://x', api, emulated: false }],
  itemCount: 0,
});

describe('resolveRunSettings', () => {
  it('takes the API from the run before, else the flag, else the suite, else versioned', () => {
    expect(resolveRunSettings({ api: 'versioned' }, suite('versioned'), ['default'], { resumed: header('legacy') }).api).toBe('legacy');
    expect(resolveRunSettings({ api: 'versioned' }, suite('legacy'), ['default'], { rerunOf: header('legacy') }).api).toBe('legacy');
    expect(resolveRunSettings({ api: 'legacy' }, suite('versioned'), ['default'], {}).api).toBe('legacy');
    expect(resolveRunSettings({}, suite('legacy'), ['default'], {}).api).toBe('legacy');
    expect(resolveRunSettings({}, suite(), ['default'], {}).api).toBe('versioned');
  });

  it('keeps a resumed run\'s cap and repeats, a rerun\'s repeats only', () => {
    const resumed = resolveRunSettings({}, suite('legacy'), ['default'], { resumed: header('legacy', { maxCredits: 40, repeats: 3 }) });
    expect([resumed.maxCredits, resumed.repeats]).toEqual([40, 3]);
    const rerun = resolveRunSettings({}, suite('legacy'), ['default'], { rerunOf: header('legacy', { maxCredits: 40, repeats: 3 }) });
    expect([rerun.maxCredits, rerun.repeats]).toEqual([undefined, 3]);
  });

  it('refuses a credit cap on the versioned API, naming the flag', () => {
    expect(() => resolveRunSettings({ maxCredits: 5 }, suite(), ['default'], {})).toThrow('--max-credits: the versioned API reports no credits');
    expect(() => resolveRunSettings({ shard: '1/2', groupMaxCredits: 5 }, suite(), ['default'], {})).toThrow('--group-max-credits: the versioned API reports no credits');
  });

  it("gives each shard its share of the group's totals, adding up to them; a resumed shard takes the totals it started with", () => {
    const shares = [1, 2, 3].map((i) => resolveRunSettings({ shard: `${i}/3`, groupConcurrency: 4, groupMaxCredits: 90 }, suite('legacy'), ['default'], {}));
    expect(shares.map((s) => s.concurrency)).toEqual([2, 1, 1]);
    expect(shares.map((s) => s.maxCredits)).toEqual([30, 30, 30]);
    expect(shares[0]!.group).toMatchObject({ limits: { concurrency: 4, maxCredits: 90 }, weight: 2, totalWeight: 6 });
    const resumed = resolveRunSettings({}, suite('legacy'), ['default'], { resumed: header('legacy', { groupConcurrency: 6, groupMaxCredits: 60 }, { id: 'g', label: 'n', shardIndex: 2, shardCount: 3 }) });
    expect([resumed.shard, resumed.concurrency, resumed.maxCredits]).toEqual([{ index: 2, count: 3 }, 2, 20]);
    expect(() => resolveRunSettings({ shard: '1/3', groupConcurrency: 2 }, suite(), ['default'], {})).toThrow('--group-concurrency 2 is fewer than the 3 shards');
  });
});

describe('apportion', () => {
  it('shares whole seats by weight, each at least one, adding up to the total', () => {
    expect(apportion(4, [6, 6, 6])).toEqual([2, 1, 1]);
    expect(apportion(10, [1, 1, 8])).toEqual([1, 1, 8]);
    expect(apportion(3, [0, 5, 5])).toEqual([1, 1, 1]);
    for (const total of [3, 7, 12, 50]) expect(apportion(total, [5, 3, 2]).reduce((a, b) => a + b, 0)).toBe(total);
  });
});
