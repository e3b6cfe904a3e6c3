// The CLI as a user runs it: a child process against an emulator started in this test process (and
// once against its own embedded emulator). Exit codes, JSON and text output, error messages, secrets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { prepareCli, type Cli, type Run } from '../helpers/cli.js';
import { closedPort } from '../helpers/server.js';
import {
  ADMIN,
  ALICE,
  FAST,
  LEGACY_HEADERS,
  SLOW,
  askAndSettle,
  client,
  closeAll,
  emulator,
  raw,
} from '../helpers/emulator.js';

let cli: Cli;
const dsbench = (args: string[], env: Record<string, string> = {}) => cli.run(args, env);

function json(run: Run): any {
  try {
    return JSON.parse(run.stdout);
  } catch {
    throw new Error(`stdout is not JSON (exit ${run.code}): ${run.stdout}\nstderr: ${run.stderr}`);
  }
}

let fast: RunningEmulator;
let slow: RunningEmulator;
const asAdmin = { SRC_ACCESS_TOKEN: ADMIN };
const POLL = ['--poll-interval', '0.01'];

beforeAll(async () => {
  [cli, fast, slow] = await Promise.all([prepareCli(), emulator(FAST), emulator(SLOW)]);
});
afterAll(async () => {
  await closeAll();
});

// Each run is a node process (about half a second of CPU): few runs, in parallel.
describe.concurrent('dsbench CLI', () => {
  it('an unreachable endpoint exits 3, after the attempts --max-attempts allows', async () => {
    const run = await dsbench(['conversations', 'delete', '140', '--endpoint', await closedPort(), '--max-attempts', '3', '--retry-base-delay', '10ms'], asAdmin);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('could not reach the instance (ECONNREFUSED');
    expect(run.stderr).toContain('after 3 attempts');
  });

  it('--retry-base-delay 0 retries at once, and still gives up after --max-attempts', async () => {
    const run = await dsbench(['conversations', 'delete', '140', '--endpoint', await closedPort(), '--max-attempts', '3', '--retry-base-delay', '0'], asAdmin);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('after 3 attempts');
  });

  it('--max-attempts 1 makes one attempt', async () => {
    const run = await dsbench(['conversations', 'delete', '140', '--endpoint', await closedPort(), '--max-attempts', '1'], asAdmin);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('could not reach the instance (ECONNREFUSED');
    expect(run.stderr).not.toContain('attempts');
  });

  it.each([
    [['--max-attempts', '0'], '--max-attempts must be an integer from 1 to 100'],
    [['--retry-base-delay', 'soon'], '--retry-base-delay: "soon" is not a duration'],
    [['--max-retry-delay', '1 week'], '--max-retry-delay: "1 week" is not a duration'],
    [['--request-timeout', '0'], '--request-timeout'],
  ])('retry flags %j are checked: exit 2', async (flags, message) => {
    const run = await dsbench(['conversations', 'list', '--endpoint', fast.url, ...flags], asAdmin);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });

  it('ask --json on the versioned API prints the answer; stats, sources and quota are null', async () => {
    const run = await dsbench(['ask', 'Where is retryPolicy defined?', '--endpoint', fast.url, '--json', ...POLL], asAdmin);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = json(run);
    expect(out).toMatchObject({
      api: 'versioned',
      emulated: false,
      index: 0,
      question: 'Where is retryPolicy defined?',
      state: 'completed',
      errorCode: null,
      rawErrorCode: null,
      errorMessage: null,
      sources: null,
      suggestedFollowups: null,
      stats: null,
      quotaUsage: null,
    });
    // The name as the server wrote it: the numeric user id, though the create said users/~self.
    expect(out.name).toMatch(/^users\/1\/conversations\/\d+$/);
    // The versioned `url` is the share URL: a secret, not printed.
    expect(out).not.toHaveProperty('url');
    expect(run.stdout).not.toContain('/deepsearch/');
    expect(out).not.toHaveProperty('id');
    expect(out.title).toEqual(expect.any(String));
    expect(out.answer).toContain(`](${fast.url}/r/github.com/org/repo/-/blob/src/`);
    expect(out.polls).toBeGreaterThanOrEqual(1);
    expect(out.turns).toHaveLength(1);
    expect(out.turns[0]).toMatchObject({ state: 'completed', title: out.title, answer: out.answer });
  });

  it('ask --json with two --followup on the legacy API: every turn, with sources, stats and quota, no read token', async () => {
    const run = await dsbench(
      ['ask', 'Where is retryPolicy defined?', '--followup', 'Who calls retryPolicy?', '--followup', 'Where is it tested?', '--api', 'legacy', '--endpoint', fast.url, '--json', ...POLL],
      asAdmin,
    );
    expect(run.code, run.stderr).toBe(0);
    const out = json(run);
    expect(out).toMatchObject({ api: 'legacy', emulated: false, index: 2, question: 'Where is it tested?', state: 'completed', errorCode: null });
    expect(out.id).toMatch(/^\d+$/);
    expect(out).not.toHaveProperty('name');
    expect(out.turns.map((t: any) => [t.index, t.question, t.state])).toEqual([
      [0, 'Where is retryPolicy defined?', 'completed'],
      [1, 'Who calls retryPolicy?', 'completed'],
      [2, 'Where is it tested?', 'completed'],
    ]);
    for (const turn of out.turns) {
      expect(turn.sources).toEqual([
        { type: 'Repository', link: '/github.com/org/repo', label: 'github.com/org/repo' },
        { type: 'Repository', link: '/github.com/org/other', label: 'github.com/org/other' },
      ]);
      expect(turn.suggestedFollowups).toHaveLength(2);
      expect(turn.stats.totalTokens).toBeGreaterThan(0);
      expect(turn.title).toEqual(expect.any(String));
    }
    const credits = out.turns.reduce((sum: number, t: any) => sum + t.stats.credits, 0);
    expect(out.quotaUsage).toMatchObject({ quotaLimit: -1, resetTime: '2025-10-01T00:00:00Z' });
    expect(out.quotaUsage.totalQuota).toBeGreaterThanOrEqual(credits);
    expect(run.stdout).not.toMatch(/read_?token|share_?url/i);
    const conversation = await client(fast, 'legacy').get(out.id);
    expect(conversation.questions.map((q) => q.text)).toEqual(out.turns.map((t: any) => t.question));
  });

  it('ask on an error trigger exits 1 with the error code in JSON and asks no further follow-up', async () => {
    const run = await dsbench(
      ['ask', 'Where is it? [[entitlement-exceeded]]', '--followup', 'Never asked', '--api', 'legacy', '--endpoint', fast.url, '--json', ...POLL],
      asAdmin,
    );
    expect(run.code).toBe(1);
    const out = json(run);
    expect(out).toMatchObject({
      state: 'error',
      errorCode: 'RATE_LIMITED',
      rawErrorCode: 'RateLimitExceeded',
      errorMessage: 'Your entitlement does not allow more Deep Search questions.',
      answer: null,
      title: null,
    });
    expect(out.turns).toHaveLength(1);
  });

  it('conversations list and show, as JSON and as text', async () => {
    const { created, question } = await askAndSettle(client(fast, 'legacy'), 'Where is listedHandler defined?');
    const id = created.ref;
    const name = `users/1/conversations/${id}`;
    const [listJson, listText, showText, showJson] = await Promise.all([
      dsbench(['conversations', 'list', '--api', 'legacy', '--page-size', '2', '--endpoint', fast.url, '--json'], asAdmin),
      dsbench(['conversations', 'list', '--endpoint', fast.url], asAdmin),
      dsbench(['conversations', 'show', id, '--api', 'legacy', '--endpoint', fast.url], asAdmin),
      dsbench(['conversations', 'show', id, '--endpoint', fast.url, '--json'], asAdmin),
    ]);
    for (const run of [listJson, listText, showText, showJson]) expect(run.code, run.stderr).toBe(0);

    const listed = json(listJson);
    expect(listed).toContainEqual(expect.objectContaining({ ref: id, state: 'completed', title: question.title, userId: 1 }));
    expect(new Set(listed.map((s: any) => s.ref)).size).toBe(listed.length);
    expect(listText.stdout.startsWith('conversation\tstate\tupdated\ttitle\n')).toBe(true);
    expect(listText.stdout).toContain(`${name}\t\t`);
    expect(listText.stdout).toContain(`\t${question.title}\n`);

    expect(showText.stdout).toMatch(new RegExp(`^Conversation ${id} \\(legacy API\\), completed: ${question.title}\\n`));
    expect(showText.stdout).toContain('## Q1: Where is listedHandler defined?\nState: completed\n');
    // The legacy API links a conversation only by its share URL, which carries the read token: said, not printed.
    expect(showText.stdout).toContain(`Its share URL is not printed: anyone who has it can read the conversation. Open ${id} from Deep Search's history in the web client.`);
    expect(showText.stdout).not.toContain('/deepsearch/');
    expect(showJson.stdout).not.toContain('/deepsearch/');
    expect(showText.stdout).toContain('Sources:\n  - github.com/org/repo (/github.com/org/repo)');
    expect(showText.stdout).toMatch(/Stats: [\d.]+ s server time, \d+ tool calls, \d+ credits; tokens as reported: total \d+, input \d+, prompt \d+, /);
    // The server's token figures do not add up: nothing printed may present one as parts of another.
    expect(showText.stdout).not.toMatch(/input \d+:/);
    const shown = json(showJson);
    expect(shown).toMatchObject({ api: 'versioned', ref: name, state: 'completed', title: question.title });
    expect(shown.questions[0].answer).toBe(question.answer);
    expect(shown.questions[0]).not.toHaveProperty('stats');
  });

  it('conversations show --by-read-token reads a shared conversation without printing the token', async () => {
    const hers = (await askAndSettle(client(fast, 'legacy', ALICE), 'Where is aliceHandler defined?')).conversation;
    const run = await dsbench(['conversations', 'show', '--by-read-token', '--api', 'legacy', '--endpoint', fast.url, '--json'], {
      ...asAdmin,
      DSBENCH_READ_TOKEN: hers.readToken!,
    });
    expect(run.code, run.stderr).toBe(0);
    const shown = json(run);
    expect(shown).toMatchObject({ ref: hers.ref, userId: 2, viewerIsOwner: false });
    expect(shown).not.toHaveProperty('readToken');
    expect(shown).not.toHaveProperty('shareUrl');
    expect(run.stdout + run.stderr).not.toContain(hers.readToken!);
  });

  it('conversations cancel (JSON) and delete (text); showing a deleted one exits 2', async () => {
    const processing = (await client(slow, 'legacy').create('Where is slowHandler defined?')).ref;
    const doomed = (await client(fast, 'versioned').create('Where is deletedHandler defined?')).ref;
    const [cancelled, deleted] = await Promise.all([
      dsbench(['conversations', 'cancel', processing, '--api', 'legacy', '--endpoint', slow.url, '--json'], asAdmin),
      dsbench(['conversations', 'delete', doomed, '--endpoint', fast.url], asAdmin),
    ]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(json(cancelled)).toEqual({ ref: processing, canceled: true });
    expect((await client(slow, 'legacy').get(processing)).questions[0]).toMatchObject({ state: 'canceled', error: { code: 'CANCELED' } });
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe(`Deleted ${doomed}\n`);

    const shown = await dsbench(['conversations', 'show', doomed, '--endpoint', fast.url], asAdmin);
    expect(shown.code).toBe(2);
    expect(shown.stdout).toBe('');
    expect(shown.stderr).toContain(`HTTP 404: not_found: conversation ${doomed.split('/').pop()} not found`);
  });

  it('bad flags exit 2 with a message saying what is wrong', async () => {
    const cases: Array<[string[], string]> = [
      [['ask', 'Where?', '--bogus'], 'Unknown argument: bogus'],
      [['ask', 'Where?', '--api', 'foo'], 'Argument: api, Given: "foo", Choices: "legacy", "versioned"'],
      [['ask', 'Where?', '--timeout', '-1'], '--timeout: "-1" is not a positive duration'],
      [['ask'], 'Not enough non-option arguments: got 0, need at least 1'],
    ];
    const runs = await Promise.all(cases.map(([args]) => dsbench([...args, '--endpoint', fast.url], asAdmin)));
    runs.forEach((run, i) => {
      const [args, message] = cases[i]!;
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stdout, args.join(' ')).toBe('');
      expect(run.stderr, args.join(' ')).toContain(message);
      expect(run.stderr, args.join(' ')).not.toContain('internal error');
    });
    // yargs' own messages point to the help.
    for (const i of [0, 1, 3]) expect(runs[i]!.stderr).toContain('Run dsbench --help (or dsbench <command> --help) for usage.');
  });

  it('a bad token exits 3 with the server\'s message and without the token', async () => {
    const token = 'sgp_0123456789abcdef_not_a_real_token';
    const run = await dsbench(['ask', 'Where is retryPolicy defined?', '--endpoint', fast.url], { SRC_ACCESS_TOKEN: token });
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('HTTP 401: Invalid access token.');
    expect(run.stderr).not.toContain(token);
    expect(run.stderr).not.toContain('0123456789abcdef');
  });

  it('--help lists the commands and exits 0', async () => {
    const run = await dsbench(['--help']);
    expect(run.code).toBe(0);
    for (const text of ['dsbench ask <question>', 'dsbench conversations', 'dsbench emulator', '--endpoint', '--api', 'Exit codes: 0 ok']) {
      expect(run.stdout).toContain(text);
    }
  });

  it('flags read alike everywhere: durations, dash values, typos with a suggestion, numbers named', async () => {
    const [typo, notNumber, timeout, sorted, offline, emulatorFlag] = await Promise.all([
      dsbench(['ask', 'Where?', '--timout', '5m', '--endpoint', fast.url], asAdmin),
      dsbench(['search', 'retry', '--display', 'abc', '--endpoint', fast.url], asAdmin),
      dsbench(['ask', 'Where is the retry policy of undici implemented?', '--timeout', '5m', '--poll-interval', '10ms', '--endpoint', fast.url], asAdmin),
      dsbench(['conversations', 'list', '--api', 'legacy', '--sort', '-updated_at', '--limit', '2', '--endpoint', fast.url], asAdmin),
      dsbench(['runs', '--endpoint', fast.url, '--db', 'no-such.db']),
      dsbench(['emulator', '--sigma', '-3', '--port', '0']),
    ]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('--timout: did you mean --timeout?');
    expect(notNumber.code).toBe(2);
    expect(notNumber.stderr).toContain('--display takes a number, got "abc"');
    expect(timeout.code, timeout.stderr).toBe(0);
    // Not a terminal: one line per state change, each turn's end with its time.
    expect(timeout.stderr).toMatch(/dsbench: question: sent, waiting for the answer\n(dsbench: question: processing\n)?dsbench: question: completed after \d+\.\d s\n/);
    expect(sorted.code, sorted.stderr).toBe(0);
    expect(offline.code).toBe(2);
    expect(offline.stderr).toContain('Unknown argument: endpoint');
    expect(emulatorFlag.code).toBe(2);
    expect(emulatorFlag.stderr).toContain('cannot start the emulator: --sigma: Too small');
    expect(emulatorFlag.stderr).not.toContain('"code"');
  });

  it('a one-value flag given twice: the same value counts once, two values are a usage error; repeatable flags still collect', async () => {
    const [twoValues, sameTwice, followups] = await Promise.all([
      dsbench(['ask', 'Where?', '--request-timeout', '2s', '--request-timeout', '150ms', '--endpoint', fast.url], asAdmin),
      dsbench(['ask', 'Where is the retry policy of undici implemented?', '--timeout', '5m', '--timeout', '5m', '--json', '--json', '--poll-interval', '10ms', '--endpoint', fast.url], asAdmin),
      dsbench(['ask', 'Where is the retry policy of undici implemented?', '--followup', 'And its tests?', '--followup', 'And its defaults?', '--json', '--poll-interval', '10ms', '--endpoint', fast.url], asAdmin),
    ]);
    expect(twoValues.code).toBe(2);
    expect(twoValues.stderr).toContain('--request-timeout was given 2 times ("2s", "150ms"); give it once');
    expect(twoValues.stderr).not.toContain('internal error');
    expect(sameTwice.code, sameTwice.stderr).toBe(0);
    expect(followups.code, followups.stderr).toBe(0);
    expect(followups.stdout).toContain('And its defaults?');
    expect(followups.stdout).toContain('And its tests?');
  });

  it('with no endpoint, ask uses the embedded emulator and says so', async () => {
    const run = await dsbench(['ask', 'Where is the retry policy of undici implemented?', '--json', '--poll-interval', '0.05'], {
      DSBENCH_EMULATOR_TIME_SCALE: '0.001',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/using the embedded emulator at http:\/\/127\.0\.0\.1:\d+ \(answers are emulated\)/);
    const out = json(run);
    expect(out).toMatchObject({ api: 'versioned', emulated: true, state: 'completed', errorCode: null });
    expect(out.answer).toEqual(expect.any(String));
  });
});

describe('dsbench CLI output', () => {
  it('never carries the access token or a read token', async () => {
    const readTokens: string[] = [];
    for (const token of [ADMIN, ALICE]) {
      for (const e of [fast, slow]) {
        const reply = await raw(e, 'GET', '/.api/deepsearch/v1?page_first=100', { token, headers: LEGACY_HEADERS });
        readTokens.push(...(reply.json as Array<{ read_token: string }>).map((c) => c.read_token));
      }
    }
    expect(readTokens.length).toBeGreaterThan(5);
    expect(cli.printed.length).toBeGreaterThan(25);
    const all = cli.printed.join('\n');
    expect(all).not.toContain(ADMIN);
    expect(all).not.toContain(ALICE);
    for (const token of readTokens) expect(all).not.toContain(token);
  });
});
