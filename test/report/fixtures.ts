import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ExpectationResult, PlannedItem, SearchRecord, TurnRecord } from '../../src/model/item.js';
import type { RunInfo, TargetInfo } from '../../src/model/run.js';
import type { Stats } from '../../src/model/conversation.js';
import { afterEach, beforeEach } from 'vitest';
import { type Store, openStore } from '../../src/store/store.js';

// Test databases are built through the real recorder, as the runner writes them.

export function tempDir(prefix = 'dsbench-report-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface TempStore {
  dir: string;
  /** The database file. */
  db: string;
  store: Store;
}

/** A fresh database in a fresh folder for each test, handed to `use`; closed and removed after it. */
export function useTempStore(use: (t: TempStore) => void): void {
  let current: TempStore | undefined;
  beforeEach(() => {
    const dir = tempDir();
    const db = path.join(dir, 'results.db');
    current = { dir, db, store: openStore(db) };
    use(current);
  });
  afterEach(() => {
    current?.store.close();
    if (current) fs.rmSync(current.dir, { recursive: true, force: true });
    current = undefined;
  });
}

export const TARGETS: TargetInfo[] = [
  { name: 'prod', url: 'https://sg.example.com', api: 'legacy', emulated: false },
  { name: 'staging', url: 'https://staging.example.com', api: 'legacy', emulated: false },
];

export function info(overrides: Partial<RunInfo> = {}): RunInfo {
  return {
    label: 'nightly',
    suiteName: 'smoke',
    suitePath: 'suites/smoke.yaml',
    suiteHash: 'cd'.repeat(32),
    dsbenchVersion: '0.1.0',
    options: { concurrency: 2 },
    startedAt: '2025-03-01T00:00:00.000Z',
    ...overrides,
  };
}

export function stats(overrides: Partial<Stats> = {}): Stats {
  return {
    timeMillis: 1000,
    toolCalls: 2,
    totalInputTokens: 900,
    cachedTokens: 0,
    cacheCreationInputTokens: 0,
    promptTokens: 800,
    completionTokens: 100,
    totalTokens: 1000,
    credits: 2,
    ...overrides,
  };
}

export function completed(overrides: Partial<TurnRecord> & { serverMs?: number; credits?: number; tokens?: number; toolCalls?: number } = {}): TurnRecord {
  const { credits, tokens, toolCalls, ...rest } = overrides;
  const serverMs = overrides.serverMs ?? 1000;
  return {
    state: 'completed',
    text: 'How does retry work?',
    questionId: '101',
    title: 'Retries',
    answer: 'The retry policy lives in retry.ts and uses exponential backoff.',
    sources: [
      { type: 'Repository', link: '/github.com/org/repo', label: 'github.com/org/repo' },
      { type: 'File', link: '/github.com/org/repo/-/blob/retry.ts', label: 'retry.ts' },
    ],
    suggestedFollowups: ['Which codes?', 'How long?'],
    stats: stats({ timeMillis: serverMs, ...(credits !== undefined && { credits }), ...(tokens !== undefined && { totalTokens: tokens }), ...(toolCalls !== undefined && { toolCalls }) }),
    sentAt: '2025-03-01T00:00:01.000Z',
    observedEndAt: '2025-03-01T00:00:02.500Z',
    serverMs,
    serverMsSource: 'stats.time_millis',
    wallMs: serverMs + 500,
    polls: 3,
    ...rest,
  };
}

export function failed(code: 'INTERNAL' | 'TOKEN_LIMIT_EXCEEDED' | 'QUOTA_EXCEEDED' = 'INTERNAL', message = 'the agent failed'): TurnRecord {
  return {
    state: 'error',
    text: 'How does retry work?',
    error: { code, rawCode: code === 'INTERNAL' ? 'InternalError' : 'TokenLimitExceeded', message },
    stats: stats({ credits: 0, totalTokens: 0, toolCalls: 0, timeMillis: 200 }),
    serverMs: 200,
    serverMsSource: 'stats.time_millis',
    wallMs: 900,
    polls: 2,
  };
}

export function question(id: string, target = 'prod', repeat = 0, tags: string[] = []): PlannedItem {
  return { key: `${target}/question/${id}/${repeat}`, kind: 'question', target, suiteItemId: id, repeat, tags };
}

export function search(id: string, target = 'prod', repeat = 0, tags: string[] = []): PlannedItem {
  return { key: `${target}/search/${id}/${repeat}`, kind: 'search', target, suiteItemId: id, repeat, tags };
}

export function searchRecord(overrides: Partial<SearchRecord> = {}): SearchRecord {
  return {
    query: 'retry lang:go',
    params: { version: 'V3' },
    verdict: 'complete',
    matchCount: 10,
    counted: 10,
    countedByType: { content: 10 },
    repositories: 2,
    files: 4,
    exhaustive: true,
    durationMs: 120,
    wallMs: 150,
    timeToFirstEventMs: 20,
    timeToFirstMatchMs: 40,
    skipped: [],
    ...overrides,
  };
}

export interface ItemScript {
  item: PlannedItem;
  turns?: TurnRecord[];
  search?: SearchRecord;
  expectations?: ExpectationResult[];
  /** Leave the item pending (not started) or running (started, not finished). */
  leave?: 'pending' | 'running';
}

/** Records a whole run: items, their turns or search, expectations, end states. Returns the run id. */
export function recordRun(
  store: Store,
  scripts: ItemScript[],
  options: { info?: Partial<RunInfo>; targets?: TargetInfo[]; status?: 'completed' | 'running' | 'aborted' } = {},
): number {
  const r = store.recorder;
  const runInfo = info(options.info);
  // Times after the run's own start: a run started on another day must not end before it began.
  const after = (ms: number) => new Date(Date.parse(runInfo.startedAt) + ms).toISOString();
  const runId = r.createRun(runInfo, options.targets ?? TARGETS, scripts.map((s) => s.item));
  for (const s of scripts) {
    if (s.leave === 'pending') continue;
    r.itemStarted(runId, s.item.key, after(1_000));
    if (s.item.kind === 'question') r.conversationCreated(runId, s.item.key, `c-${s.item.key}`, after(1_000));
    (s.turns ?? []).forEach((t, i) => r.recordTurn(runId, s.item.key, i, t));
    if (s.search) r.recordSearch(runId, s.item.key, s.search);
    if (s.leave === 'running') continue;
    if (s.expectations) r.recordExpectations(runId, s.item.key, s.expectations);
    const last = s.turns?.at(-1);
    const outcome = s.search ? s.search.verdict : last ? (last.state === 'sending' ? 'client_error' : last.state) : 'completed';
    r.itemFinished(runId, s.item.key, outcome as never, after(5_000));
  }
  if (options.status !== 'running') r.setRunStatus(runId, options.status ?? 'completed', after(3_600_000));
  // Reports read through connections of their own: what was recorded is committed before they start.
  r.commit();
  return runId;
}

/** A night of questions q00.. on target prod, each asked `repeats` times with one check; `erring` ones end in a token-limit error. */
export function checkedNight(count: number, repeats: number, erring: ReadonlySet<number> = new Set()): ItemScript[] {
  return Array.from({ length: count * repeats }, (_, n) => {
    const i = Math.floor(n / repeats);
    return {
      item: question(`q${String(i).padStart(2, '0')}`, 'prod', n % repeats),
      turns: [erring.has(i) ? failed('TOKEN_LIMIT_EXCEEDED') : completed({ serverMs: 1000 + i })],
      expectations: [{ name: 'contains', passed: !erring.has(i), reason: 'r' }],
    };
  });
}

export function readCsv(file: string): string[][] {
  return parseCsv(fs.readFileSync(file, 'utf8'));
}

/** A small RFC 4180 parser for the tests (quoted fields, doubled quotes, newlines inside quotes). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** CSV rows as objects by header. */
export function csvObjects(file: string): Array<Record<string, string>> {
  const [header, ...rows] = readCsv(file);
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] ?? ''])));
}

/**
 * `nights` completed runs a day apart of `questions` questions x 2 repeats, every check passing, tagged
 * `even` or `odd`; latency 1-1.1 s, varying a little by question and night, times `factor` from night
 * `stepAt` (0-based) on. Returns the run ids, oldest first.
 */
export function recordNights(store: Store, options: { nights: number; questions?: number; stepAt?: number; factor?: number; versions?: (night: number) => string }): number[] {
  const ids: number[] = [];
  for (let n = 0; n < options.nights; n++) {
    const factor = options.stepAt !== undefined && n >= options.stepAt ? (options.factor ?? 2) : 1;
    const scripts: ItemScript[] = [];
    for (let q = 0; q < (options.questions ?? 4); q++) {
      for (const repeat of [0, 1]) {
        const serverMs = Math.round(1000 * factor * (1 + 0.02 * ((q * 7 + n * 13 + repeat * 3) % 5)));
        scripts.push({ item: question(`q${q}`, 'prod', repeat, [q % 2 === 0 ? 'even' : 'odd']), turns: [completed({ serverMs })], expectations: [{ name: 'contains', passed: true, reason: 'found' }] });
      }
    }
    const day = new Date(Date.parse('2025-03-01T03:00:00.000Z') + n * 86_400_000).toISOString();
    const runId = recordRun(store, scripts, { targets: [TARGETS[0]!], info: { startedAt: day } });
    if (options.versions) store.recorder.productVersion(runId, TARGETS[0]!.name, { version: options.versions(n) });
    ids.push(runId);
  }
  return ids;
}
