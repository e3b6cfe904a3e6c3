import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { speedNote } from '../../src/cli/emulator.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { dsbenchHere } from '../helpers/cli-here.js';
import { builtCliMain, ROOT } from '../helpers/cli.js';

const ADMIN_TOKEN = 'cli-admin-secret-0123456789';
let child: ChildProcess | undefined;

afterEach(() => {
  child?.kill('SIGTERM');
  child = undefined;
});

/** Starts `dsbench emulator` and resolves with its first stdout line and a way to read its stderr. */
function start(args: string[], env: Record<string, string> = {}): Promise<{ first: string; stderr: () => string }> {
  const proc = spawn(process.execPath, [builtCliMain(), 'emulator', '--port', '0', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  let out = '';
  let err = '';
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  return new Promise((resolve, reject) => {
    proc.on('exit', (code) => reject(new Error(`emulator exited ${code}: ${err}`)));
    proc.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (out.includes('Try:') || (args.includes('--json') && out.includes('\n'))) resolve({ first: out, stderr: () => err });
    });
  });
}

describe('dsbench emulator (standalone)', () => {
  it('takes fault switches as flags, shows them on the admin interface with the token from the environment, logs requests with --log, answers GraphQL with --product-version', async () => {
    const { first, stderr } = await start(['--json', '--log', '--product-version', '7.0.1', '--fault-rate-503', '0.25', '--stream-stall-rate', '0.5', '--stream-stall-ms', '300', '--clock-offset-ms', '-60000', '--act-delay-ms', '5'], {
      DSBENCH_EMULATOR_ADMIN_TOKEN: ADMIN_TOKEN,
    });
    const info = JSON.parse(first);
    expect(info.admin).toBe(`${info.url}/-/emulator/`);
    const faults: any = await (await fetch(`${info.admin}faults`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })).json();
    expect(faults.http).toMatchObject({ rate503: 0.25, clockOffsetMs: -60_000, actDelayMs: 5 });
    expect(faults.stream).toMatchObject({ rates: { stall: 0.5 }, stallMs: 300 });
    const graphql = await fetch(`${info.url}/.api/graphql`, { method: 'POST', headers: { Authorization: `token ${info.tokens[0].token}` }, body: '{"query":"query { site { productVersion } }"}' });
    expect(await graphql.json()).toEqual({ data: { site: { productVersion: '7.0.1' } } });
    await fetch(`${info.url}/.api/deepsearch/v1/12?x=1`, { headers: { Authorization: `token ${info.tokens[0].token}`, 'X-Requested-With': 'test 1' } });
    await expect.poll(stderr).toMatch(/^\S+Z GET \/\.api\/deepsearch\/v1\/12 (404|503) [\d.]+ ms legacy\.get$/m);
    expect(stderr()).not.toContain(info.tokens[0].token);
    expect(stderr()).not.toContain(ADMIN_TOKEN);
  }, 60_000);

  it('says how fast it runs and how to go faster; admin is off without the environment variable', async () => {
    const { first } = await start(['--time-scale', '0.5']);
    expect(first).toContain(speedNote(0.5, 30_000));
    expect(first).toContain('Admin interface off: set DSBENCH_EMULATOR_ADMIN_TOKEN');
    expect(speedNote(1, 30_000)).toBe(
      'Speed: an answer takes 30 s of real time at the median (30 s emulated); stream keep-alives every 5 s. ' +
        'Faster: --time-scale 0.01 (answers in 300 ms; the wire still reports emulated times) or a smaller --median-ms.',
    );
  }, 60_000);

  it('refuses answer-time and error flags beside --noise realistic, which draws them itself, and says the profile\'s pace', async () => {
    const refused = await dsbenchHere(['emulator', '--port', '0', '--noise', 'realistic', '--median-ms', '5000', '--internal-error-rate', '0.2']);
    expect(refused.code).toBe(ExitCode.usage);
    expect(refused.stderr).toContain('--median-ms, --internal-error-rate with --noise realistic: the noise profile draws answer times and errors itself');
    expect(refused.stderr).toContain('use --noise none to set answer times and errors yourself');
    const { first } = await start(['--noise', 'realistic', '--time-scale', '0.01']);
    expect(first).toContain(speedNote(0.01, 150_000, true));
    expect(speedNote(0.01, 150_000, true)).not.toContain('--median-ms');
  }, 60_000);

  it('--legacy-followup-reply conversation answers a follow-up with the whole conversation', async () => {
    const info = JSON.parse((await start(['--json', '--time-scale', '0.0001', '--legacy-followup-reply', 'conversation'])).first);
    const call = async (method: string, suffix: string, body: unknown): Promise<any> =>
      (
        await fetch(`${info.url}/.api/deepsearch/v1${suffix}`, {
          method,
          headers: { Authorization: `token ${info.tokens[0].token}`, 'X-Requested-With': 'test 1', 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      ).json();
    const { id } = await call('POST', '', { question: 'Where is retryPolicy?' });
    await expect.poll(async () => (await call('GET', `/${id}`, undefined)).questions[0].status, { timeout: 20_000 }).toBe('completed');
    const reply = await call('POST', `/${id}/questions`, { conversation_id: id, question: 'Who calls it?' });
    expect(reply.questions.map((q: any) => q.question)).toEqual(['Where is retryPolicy?', 'Who calls it?']);
  }, 60_000);
});
