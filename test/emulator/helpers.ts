import { fileURLToPath } from 'node:url';
import { startEmulator, type EmulatorHooks, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import type { SearchHit } from '../../src/emulator/index.js';

export const ADMIN = 'sgp_emulator_admin_token';
export const ALICE = 'sgp_emulator_alice_token';
export const READONLY = 'sgp_emulator_readonly_token';
export const START = '2025-09-24T08:14:06Z';

/** Answers in a few real ms; a fixed start keeps quota periods away from the test. */
export const FAST: EmulatorOptions = { timeScale: 0.0001, startTime: START };
/** Questions stay processing for a minute of real time, for states observed mid-run. */
export const SLOW: EmulatorOptions = { timeScale: 1, sigma: 0, medianMs: 60_000, startTime: START };

export const tinySearch = async (query: string): Promise<SearchHit[]> =>
  query === 'retryPolicy'
    ? [
        { repository: 'github.com/org/repo', path: 'src/retry.ts', lineNumber: 10, preview: 'export function retryPolicy() {' },
        { repository: 'github.com/org/other', path: 'lib/policy.ts', lineNumber: 3, preview: 'retryPolicy()' },
      ]
    : [];

const running: RunningEmulator[] = [];

/**
 * Four files in two repositories (`test/emulator/fixtures/corpus`): what the agent cites when a test needs an
 * answer, any answer. Searching dsbench's node_modules, 4,000 files, took seconds of CPU per question.
 */
export const SMALL_CORPUS = { dir: fileURLToPath(new URL('./fixtures/corpus', import.meta.url)), archived: [], forks: [] };
/** dsbench's node_modules, the emulator's default corpus: for tests of what the agent finds in real code. */
export const NODE_MODULES = {};

/** An emulator stopped by stopAll(); its corpus is SMALL_CORPUS unless `options.corpus` says otherwise. */
export async function emulator(options: EmulatorOptions = FAST, hooks: EmulatorHooks = {}): Promise<RunningEmulator> {
  const e = await startEmulator({ corpus: SMALL_CORPUS, ...options }, hooks);
  running.push(e);
  return e;
}

export async function stopAll(): Promise<void> {
  await Promise.all(running.splice(0).map((e) => e.stop()));
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

async function toReply(res: Response): Promise<Reply> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export async function legacy(
  e: RunningEmulator,
  method: string,
  path: string,
  body?: unknown,
  token: string | undefined = ADMIN,
  extra: Record<string, string> = {},
): Promise<Reply> {
  const headers: Record<string, string> = { 'X-Requested-With': 'dsbench-test 0.1.0', Accept: 'application/json', ...extra };
  if (token !== undefined) headers.Authorization = `token ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${e.url}/.api/deepsearch/v1${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return toReply(res);
}

export async function rpc(
  e: RunningEmulator,
  method: string,
  body: unknown = {},
  token: string | undefined = ADMIN,
  extra: Record<string, string> = {},
): Promise<Reply> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'Connect-Protocol-Version': '1',
    ...extra,
  };
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(`${e.url}/api/deepsearch.v1.Service/${method}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  return toReply(res);
}

/** The longest pause between polls: a poll is a request the emulator answers on the cores its agent searches on. */
const MAX_POLL_GAP_MS = 16;

/**
 * Polls until `done`, 1 ms apart at first, then twice as far apart each time up to MAX_POLL_GAP_MS: answers
 * that come at once are seen at once, and an answer waiting on the agent's searches (a second or more for
 * the first ones over a cold corpus on a busy machine) is not slowed by hundreds of polls. The deadline is a
 * safety net, not a wait.
 */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, deadlineMs = 30_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (let gap = 1; ; gap = Math.min(2 * gap, MAX_POLL_GAP_MS)) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not done in time: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, gap));
  }
}

export function legacySettled(e: RunningEmulator, id: number, token = ADMIN): Promise<Reply> {
  return pollUntil(
    () => legacy(e, 'GET', `/${id}`, undefined, token),
    (r) => r.status !== 200 || r.json.questions.every((q: { status: string }) => q.status === 'completed'),
  );
}

export function versionedSettled(e: RunningEmulator, name: string): Promise<Reply> {
  return pollUntil(
    () => rpc(e, 'GetConversation', { name }),
    (r) => r.status !== 200 || !('processing' in r.json.state),
  );
}

export async function ask(e: RunningEmulator, question: string, token = ADMIN): Promise<any> {
  const created = await legacy(e, 'POST', '', { question }, token);
  if (created.status !== 202) throw new Error(`create failed: ${created.status} ${created.text}`);
  return created.json;
}
