// Shared set-up for tests that drive the Deep Search clients (and the CLI) against the emulator.
import { connectionFor } from '../../src/config/credentials.js';
import { createClient, type ClientOptions, type DeepSearchClient } from '../../src/deepsearch/index.js';
import { LegacyClient } from '../../src/deepsearch/legacy.js';
import type { Conversation, Question } from '../../src/model/conversation.js';
import { fixedSchedule, waitForQuestion, type WaitResult } from '../../src/deepsearch/wait.js';
import { startEmulator, type EmulatorHooks, type EmulatorOptions, type RunningEmulator, type SearchHit } from '../../src/emulator/index.js';

export type Api = 'legacy' | 'versioned';
export const APIS: readonly Api[] = ['legacy', 'versioned'];

export const ADMIN = 'sgp_emulator_admin_token';
export const ALICE = 'sgp_emulator_alice_token';
export const READONLY = 'sgp_emulator_readonly_token';
/** A fixed virtual start keeps quota resets (start of next month) away from the tests. */
export const START = '2025-09-24T08:14:06Z';

/** Two hits in two repositories for every query: answers with links, sources and follow-ups, no corpus scan. */
export const inlineSearch = async (query: string): Promise<SearchHit[]> => [
  { repository: 'github.com/org/repo', path: `src/${query}.ts`, lineNumber: 10, preview: `export function ${query}() {` },
  { repository: 'github.com/org/other', path: 'lib/policy.ts', lineNumber: 3, preview: `${query}()` },
];

/** The hooks of `emulator()` unless a test passes others: the agent cites from `inlineSearch`. */
export const INLINE_SEARCH: EmulatorHooks = { search: inlineSearch };
/** No hooks: the agent cites from the emulator's corpus (`corpus.dir`, else dsbench's node_modules). */
export const CORPUS_SEARCH: EmulatorHooks = {};

/** Answers within a few real ms (a 30 s median answer takes 3 ms). */
export const FAST: EmulatorOptions = { timeScale: 0.0001, startTime: START };
/** Every question processes for exactly 400 ms of real time: long enough to be seen processing on a busy machine, short to wait for. */
export const PACED: EmulatorOptions = { timeScale: 0.004, sigma: 0, medianMs: 100_000, startTime: START };
/** Questions stay processing for a minute of real time, for states observed mid-run (cancel, wait timeouts). */
export const SLOW: EmulatorOptions = { timeScale: 1, sigma: 0, medianMs: 60_000, startTime: START };

/** Fast retries so fault tests take milliseconds; the policy itself is the transport's. */
export const FAST_RETRY: ClientOptions = { retry: { baseDelayMs: 1, maxDelayMs: 20 } };

const emulators: RunningEmulator[] = [];
const clients: DeepSearchClient[] = [];

/** An emulator on a free port, stopped by closeAll(); it answers from `inlineSearch` unless `hooks` say otherwise. */
export async function emulator(options: EmulatorOptions = FAST, hooks: EmulatorHooks = INLINE_SEARCH): Promise<RunningEmulator> {
  const e = await startEmulator({ port: 0, ...options }, hooks);
  emulators.push(e);
  return e;
}

export function client(e: RunningEmulator | string, api: Api, token: string = ADMIN, options: ClientOptions = FAST_RETRY): DeepSearchClient {
  const url = typeof e === 'string' ? e : e.url;
  const c = createClient(connectionFor(url, token, {}), api, options);
  clients.push(c);
  return c;
}

export function legacyClient(e: RunningEmulator, token: string = ADMIN): LegacyClient {
  const c = client(e, 'legacy', token);
  if (!(c instanceof LegacyClient)) throw new Error('expected a legacy client');
  return c;
}

/** Closes every client and emulator made since the last call (use in afterEach/afterAll). */
export async function closeAll(): Promise<void> {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(emulators.splice(0).map((e) => e.stop()));
}

/** Polls 2 ms apart until question `index` ends; the timeout is a safety net, not a wait. */
export async function settle(c: DeepSearchClient, ref: string, index = 0, timeoutMs = 5_000): Promise<WaitResult> {
  const result = await waitForQuestion(c, ref, index, { schedule: fixedSchedule(2), timeoutMs });
  if (result.timedOut) throw new Error(`question ${index} of ${ref} did not end within ${timeoutMs} ms`);
  return result;
}

/** Asks a question and waits for its end. */
export async function askAndSettle(c: DeepSearchClient, text: string): Promise<{ created: Conversation; question: Question; conversation: Conversation }> {
  const created = await c.create(text);
  const { conversation, question } = await settle(c, created.ref);
  return { created, question: question!, conversation };
}

/** The emulator's counter name of a logical operation in either flavour. */
export function op(api: Api, name: 'create' | 'get' | 'list' | 'addQuestion' | 'cancel' | 'delete'): string {
  if (api === 'legacy') return `legacy.${name}`;
  const versioned = {
    create: 'CreateConversation',
    get: 'GetConversation',
    list: 'ListConversationSummaries',
    addQuestion: 'AddConversationQuestion',
    cancel: 'CancelConversation',
    delete: 'DeleteConversation',
  } as const;
  return `versioned.${versioned[name]}`;
}

export interface RawReply {
  status: number;
  contentType: string;
  text: string;
  json: any;
}

/** A request sent with fetch, outside the clients, to see exactly what the emulator answers. */
export async function raw(
  e: RunningEmulator,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; token?: string | null } = {},
): Promise<RawReply> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.token !== null) headers.authorization = `token ${options.token ?? ADMIN}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${e.url}${path}`, {
    method,
    headers,
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, json };
}

export const LEGACY_HEADERS = { 'x-requested-with': 'dsbench-test 0.0.0' };
export const CONNECT_HEADERS = { 'connect-protocol-version': '1' };

/** Captures a rejection so its type, exit code and message can all be checked. */
export async function failure(promise: Promise<unknown>): Promise<Error & { exitCode?: number; status?: number; code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { exitCode?: number };
  }
  throw new Error('expected the call to fail, and it succeeded');
}

/** Drains an async iterable (a client's list). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
