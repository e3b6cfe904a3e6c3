// `run --notify URL`: a post to each receiver when a night's verdict differs from the night before's, tested
// against real receivers on port 0 that answer, fail (500), redirect, refuse connections or never answer.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { changesBetween } from '../../src/notify/change.js';
import { notifyPayloadSchema, type NotifyNight } from '../../src/notify/payload.js';
import { deliverAll } from '../../src/notify/post.js';
import { parseReceivers } from '../../src/notify/receivers.js';
import { dsbenchHere } from '../helpers/cli-here.js';
import { closedPort, startServer, type TestServer } from '../helpers/server.js';
import { FAST, cleanup, corpusDir, emulator, tempDir, writeSuite } from '../runner/fixtures/harness.js';

const TOKEN = 'sgp_notify_token_0123456789abcdef';
const suiteText = (expect: string) => `name: nightly
defaults: { api: legacy, poll: { strategy: fixed, interval: 1s } }
questions:
  - id: where-retry
    question: Where is backoffDelay implemented?
    expect: { contains: ${expect} }
`;
const GREEN = suiteText('backoffDelay');
const RED = suiteText('no-such-text-anywhere');

/** Three runs of a CLI each: a loaded machine takes longer than the default 20 s. */
const CLI_TESTS_MS = 90_000;

let e: RunningEmulator;
const servers: TestServer[] = [];
beforeAll(async () => {
  e = await emulator({ ...FAST, corpus: { dir: corpusDir() }, users: [{ id: 1, username: 'admin', tokens: [{ token: TOKEN, scopes: ['externalapi:read', 'externalapi:write'] }] }] });
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await cleanup();
});

async function receiver(handler: Parameters<typeof startServer>[0] = (_req, res) => res.writeHead(200).end('ok')): Promise<TestServer> {
  const s = await startServer(handler);
  servers.push(s);
  return s;
}

const night = (db: string, suite: string, extra: string[]) =>
  dsbenchHere(['run', writeSuite(suite), '--endpoint', e.url, '--db', db, '--quiet', '--label', `nightly token ${TOKEN}`, ...extra], { SRC_ACCESS_TOKEN: TOKEN });

describe('run --notify', () => {
  it('posts nothing on a first night, then a Slack body and the JSON payload when green turns red, never the token', async () => {
    const db = path.join(tempDir(), 'nights.db');
    const slack = await receiver();
    const json = await receiver();
    const first = await night(db, GREEN, ['--notify', `${slack.url}/services/T0/B0/secret`, '--notify', `json=${json.url}/hook`]);
    expect(first.code, first.stderr).toBe(ExitCode.ok);
    expect(first.stdout).toContain('Notify: nothing posted (no earlier night of suite nightly with these targets to compare with).');
    expect(slack.received).toHaveLength(0);

    const second = await night(db, RED, ['--notify', `${slack.url}/services/T0/B0/secret`, '--notify', `json=${json.url}/hook`]);
    expect(second.code, second.stderr).toBe(ExitCode.expectationsFailed);
    expect(second.stdout).toContain('Notify (green-to-red)\n  receiver 1 (slack, http://127.0.0.1:');
    expect(second.stdout).not.toContain('/services/T0');
    expect(slack.received).toHaveLength(1);
    expect(slack.received[0]).toMatchObject({ method: 'POST', url: '/services/T0/B0/secret' });
    const text = JSON.parse(slack.received[0]!.body) as { text: string };
    expect(Object.keys(text)).toEqual(['text']);
    expect(text.text).toMatch(/^dsbench: suite nightly went red: run 2 "nightly token \[REDACTED\]" exit 1, run 1 "nightly token \[REDACTED\]" passed$/);
    const payload = notifyPayloadSchema.parse(JSON.parse(json.received[0]!.body));
    expect(payload).toMatchObject({ schemaVersion: 1, suite: 'nightly', changes: ['green-to-red'], tonight: { runId: 2, verdict: 'red', exitCode: 1 }, previous: { runId: 1, verdict: 'green' } });
    for (const r of [...slack.received, ...json.received]) expect(r.body).not.toContain(TOKEN);

    const again = await night(db, RED, ['--notify', `${slack.url}/services/T0/B0/secret`]);
    expect(again.stdout).toContain('Notify: nothing posted (the verdict and flaky questions are as on run 2).');
    expect(slack.received).toHaveLength(1);
  }, CLI_TESTS_MS);

  it('names each receiver that is down, failing, redirected or slow; the run keeps its exit code, within the deadline', async () => {
    const failing = await receiver((_req, res) => res.writeHead(500).end('boom'));
    const moved = await receiver((_req, res) => res.writeHead(302, { location: `${failing.url}/elsewhere` }).end());
    const slow = await receiver(() => new Promise(() => undefined));
    const down = await closedPort();
    const fine = await receiver();
    const db = path.join(tempDir(), 'faults.db');
    expect((await night(db, RED, [])).code).toBe(ExitCode.expectationsFailed);
    const started = Date.now();
    const ran = await night(db, GREEN, ['--notify-timeout', '500ms', '--notify', failing.url, '--notify', moved.url, '--notify', `json=${slow.url}`, '--notify', down, '--notify', fine.url]);
    expect(ran.code, ran.stderr).toBe(ExitCode.ok);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(ran.stdout).toContain('Notify (red-to-green): 4 of 5 receivers failed; the run\'s exit code is its own\n');
    expect(ran.stdout).toMatch(/receiver 1 \(slack, http:\/\/127\.0\.0\.1:\d+\/…\): NOT POSTED: HTTP 500; check the receiver's log/);
    expect(ran.stdout).toMatch(/receiver 2 \(slack, [^)]+\): NOT POSTED: HTTP 302 redirect, not followed; give the URL it moved to/);
    expect(ran.stdout).toMatch(/receiver 3 \(json, [^)]+\): NOT POSTED: no reply within the deadline \(500 ms, --notify-timeout\)/);
    expect(ran.stdout).toMatch(/receiver 4 \(slack, [^)]+\): NOT POSTED: .*ECONNREFUSED.*; is it up\?/);
    expect(ran.stdout).toMatch(/receiver 5 \(slack, [^)]+\): posted \(HTTP 200\)/);
    // The redirect was not followed: the 500 receiver got only its own post.
    expect(failing.received.map((r) => r.url)).toEqual(['/']);
  }, CLI_TESTS_MS);

  it('refuses a receiver that is not http(s), or a shard, before anything runs', async () => {
    const fresh = path.join(tempDir(), 'none.db');
    for (const [args, message] of [
      [['--notify', 'ftp://example.com/hook'], '--notify needs an http or https URL, got ftp: (receiver 1)'],
      [['--notify', 'json=not a url'], '--notify "json=not a url" is not a URL'],
      [['--notify', 'xml=https://example.com/'], 'unknown format "xml"'],
      [['--notify', 'https://example.com/', '--shard', '1/2'], '--notify compares whole nights'],
    ] as const) {
      const ran = await dsbenchHere(['run', writeSuite(GREEN), '--endpoint', e.url, '--db', fresh, '--quiet', ...args], { SRC_ACCESS_TOKEN: TOKEN });
      expect(ran.code).toBe(ExitCode.usage);
      expect(ran.stderr).toContain(message);
    }
    expect(existsSync(fresh)).toBe(false);
  });
});

describe('the deadline', () => {
  it('holds against a receiver that sends its headers and then trickles', async () => {
    const trickle = await receiver((_req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(timer));
    });
    const started = Date.now();
    const [d] = await deliverAll(parseReceivers([trickle.url]), payloadFixture(), 300);
    // A trickle never ends: any bound well above the deadline shows it held, with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(d).toMatchObject({ ok: false, detail: expect.stringContaining('no reply within the deadline (300 ms') });
  });
});

function nightFixture(over: Partial<NotifyNight>): NotifyNight {
  return { runId: 1, label: null, startedAt: '2026-11-28T02:00:00Z', endedAt: '2026-11-28T02:10:00Z', verdict: 'green', exitCode: 0, flaky: [], ...over };
}

function payloadFixture() {
  return notifyPayloadSchema.parse({ schemaVersion: 1, event: 'verdict-changed', suite: 's', targets: ['t'], changes: ['red-to-green'], tonight: nightFixture({ runId: 2 }), previous: nightFixture({ verdict: 'red', exitCode: 1 }), newFlaky: [], text: 'x' });
}

describe('what counts as a change', () => {
  it('is a verdict of another colour, or a question flaky tonight that was not the night before', () => {
    expect(changesBetween(nightFixture({}), nightFixture({}))).toEqual({ changes: [], newFlaky: [] });
    expect(changesBetween(nightFixture({}), nightFixture({ verdict: 'red', exitCode: 9 })).changes).toEqual(['green-to-red']);
    expect(changesBetween(nightFixture({ verdict: 'red' }), nightFixture({})).changes).toEqual(['red-to-green']);
    expect(changesBetween(nightFixture({ flaky: ['t/a'] }), nightFixture({ flaky: ['t/a'] })).changes).toEqual([]);
    expect(changesBetween(nightFixture({ flaky: ['t/a'] }), nightFixture({ flaky: ['t/b', 't/a'] }))).toEqual({ changes: ['new-flaky'], newFlaky: ['t/b'] });
  });
});
