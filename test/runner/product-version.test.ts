// Each target's product version, read at the run's start from the instance's GraphQL API: the emulator answers
// with the version it was started with; an instance that cannot tell (404, 500, not JSON, GraphQL errors, a
// hang) is recorded as unknown and the run goes on as if nothing happened.
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { runProductVersions } from '../../src/store/queries.js';
import { VERSION } from '../../src/version.js';
import { type ProxyAction, startFaultProxy } from '../helpers/fault-proxy.js';
import { FAST, cleanup, emulator, runSuite, suite, target } from './fixtures/harness.js';

const SUITE = `
name: versions
defaults:
  api: versioned
  poll: { strategy: fixed, interval: 1s }
questions:
  - id: plain
    question: Where is parseSuite defined?
    expect:
      state: completed
`;

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await cleanup();
});

describe('the product version of a target', () => {
  it('is what the emulator was started with (its option), else the package version', async () => {
    const loaded = await suite(SUITE);
    const set = await emulator({ ...FAST, productVersion: '6.9.2' });
    const plain = await emulator(FAST);
    const run = await runSuite(loaded, [target({ name: 'a', emulator: set }), target({ name: 'b', emulator: plain })]);
    try {
      expect(run.result.exitCode).toBe(ExitCode.ok);
      expect(runProductVersions(run.db, run.result.runId)).toEqual([
        { target: 'a', version: '6.9.2', error: null, onResume: null },
        { target: 'b', version: VERSION, error: null, onResume: null },
      ]);
      expect(run.reporter.logs.join('\n')).not.toContain('product version');
    } finally {
      run.close();
    }
  });

  const graphql = (action: ProxyAction) => (req: { url: string }): ProxyAction => (req.url.startsWith('/.api/graphql') ? action : { kind: 'forward' });
  const json = (body: unknown): ProxyAction => ({ kind: 'reply', status: 200, body: JSON.stringify(body), contentType: 'application/json' });
  const cases: Array<[string, ProxyAction, RegExp]> = [
    ['404', { kind: 'status', status: 404 }, /HTTP 404/],
    ['500', { kind: 'status', status: 500 }, /HTTP 500/],
    ['a reply that is not JSON', { kind: 'reply', status: 200, body: '<html><body>Sign in</body></html>', contentType: 'text/html' }, /html|JSON/i],
    ['GraphQL errors', json({ data: null, errors: [{ message: 'Cannot query field "productVersion" on type "Site".' }] }), /Cannot query field/],
    ['a version that is no version', json({ data: { site: { productVersion: '<script>alert(1)</script>' } } }), /is not a version/],
    ['a hang', { kind: 'hang' }, /time|abort/i],
  ];

  it.each(cases)('is unknown on %s, and the run goes on unaffected', async (_name, action, why) => {
    const loaded = await suite(SUITE);
    const e = await emulator({ ...FAST, productVersion: '6.9.2' });
    const proxy = await startFaultProxy(e.url, graphql(action));
    closers.push(() => proxy.close());
    const started = performance.now();
    const run = await runSuite(loaded, [target({ name: 'main', emulator: proxy.url, timeScale: e.options.timeScale })], { productVersionTimeoutMs: 500 });
    try {
      expect(run.result.exitCode, JSON.stringify(run.result)).toBe(ExitCode.ok);
      expect(run.result.status).toBe('completed');
      const [version] = runProductVersions(run.db, run.result.runId);
      expect(version).toMatchObject({ target: 'main', version: null, onResume: null });
      expect(version!.error).toMatch(why);
      expect(run.reporter.logs.join('\n')).toContain('target main: product version unknown');
      // A hanging instance holds the run no longer than the version's own deadline (plus a loaded machine's slack).
      expect(performance.now() - started).toBeLessThan(20_000);
    } finally {
      run.close();
    }
  });
});
