import type Database from 'better-sqlite3';
import { redact } from '../redact.js';
import type { QuotaUsage } from '../model/conversation.js';
import type { ExpectationResult, PlannedItem, SearchRecord, TurnRecord } from '../model/item.js';
import type { RunInfo, TargetInfo, UnownedConversation } from '../model/run.js';
import { type SqlValue, binder, insertSql, pick } from './columns.js';
import { withoutSecretKeys, withoutUrlSecrets } from './secrets.js';
import { EXPECTATIONS, FOLLOWUPS, ITEMS, LOST_CREATES, QUOTA_SNAPSHOTS, RUNS, SEARCHES, SOURCES, TARGETS, TURNS, TURN_KEYS, UNOWNED_CONVERSATIONS, turnMerge } from './tables.js';

const RUN_WRITTEN = pick(RUNS, 'label', 'suiteName', 'suitePath', 'suiteHash', 'dsbenchVersion', 'options', 'startedAt', 'status', 'groupId', 'groupLabel', 'shardIndex', 'shardCount', 'rerunOf', 'confirmOf');
const TARGET_WRITTEN = pick(TARGETS, 'runId', 'name', 'url', 'api', 'emulated');
const ITEM_WRITTEN = pick(ITEMS, 'runId', 'itemKey', 'position', 'kind', 'target', 'suiteItemId', 'repeat', 'tags', 'itemStatus', 'definitionHash');

const bindRun = binder(RUN_WRITTEN);
const bindTarget = binder(TARGET_WRITTEN);
const bindItem = binder(ITEM_WRITTEN);
const bindTurn = binder(TURNS);
const bindSource = binder(SOURCES);
const bindFollowup = binder(FOLLOWUPS);
const bindSearch = binder(SEARCHES);
const bindExpectation = binder(EXPECTATIONS);
const bindQuota = binder(QUOTA_SNAPSHOTS);
const bindUnowned = binder(UNOWNED_CONVERSATIONS);
const bindLostCreate = binder(LOST_CREATES);

// Client errors and messages are redacted by the runner already; once more costs nothing here.
export function redacted(text: string | undefined): string | null {
  return text === undefined ? null : redact(text);
}

/** A turn's, a search's or an item's child rows are those of one (run, item key). */
interface ItemRef {
  runId: number;
  itemKey: string;
}

/** Prepares one statement whose parameters are a row's bound values. */
type Prepare = (sql: string) => Database.Statement<[readonly SqlValue[]]>;

/**
 * The statements that write a run's rows, each prepared once (a call does no schema lookups and no SQL
 * parsing), and the writers that bind a record's fields to them (see `binder`).
 */
export function prepareRowWriters(db: Database.Database) {
  const s: Prepare = (sql) => db.prepare<[readonly SqlValue[]]>(sql);
  return {
    run: runWriter(s),
    turn: turnWriter(s),
    search: searchWriter(s),
    expectations: expectationsWriter(s),
    ...targetEventWriters(s),
  };
}

/** The run, its targets and its planned items (all `pending`); returns the run's id. */
function runWriter(s: Prepare) {
  const insertRun = s(insertSql('runs', RUN_WRITTEN));
  const insertTarget = s(insertSql('targets', TARGET_WRITTEN));
  const insertItem = s(insertSql('items', ITEM_WRITTEN));
  return (info: RunInfo, targets: TargetInfo[], items: Iterable<PlannedItem>): number => {
    const run = bindRun({
      label: info.label ?? null,
      suiteName: info.suiteName,
      suitePath: info.suitePath,
      suiteHash: info.suiteHash,
      dsbenchVersion: info.dsbenchVersion,
      options: withoutSecretKeys(info.options) as Record<string, unknown>,
      startedAt: info.startedAt,
      status: 'running',
      groupId: info.group?.id ?? null,
      groupLabel: info.group?.label ?? null,
      shardIndex: info.group?.shardIndex ?? null,
      shardCount: info.group?.shardCount ?? null,
      rerunOf: info.rerunOf ?? null,
      confirmOf: info.confirmOf ?? null,
    });
    const runId = Number(insertRun.run(run).lastInsertRowid);
    for (const t of targets) insertTarget.run(bindTarget({ runId, name: t.name, url: withoutUrlSecrets(t.url), api: t.api, emulated: t.emulated }));
    let position = 0;
    for (const item of items) {
      insertItem.run(
        bindItem({
          runId,
          itemKey: item.key,
          position: item.position ?? position,
          kind: item.kind,
          target: item.target,
          suiteItemId: item.suiteItemId,
          repeat: item.repeat,
          tags: item.tags,
          itemStatus: 'pending',
          definitionHash: item.definitionHash ?? null,
        }),
      );
      position++;
    }
    return runId;
  };
}

/** Merges the record into the stored turn (see turnMerge); sources and follow-ups are replaced when it carries them. */
function turnWriter(s: Prepare) {
  const upsertTurn = s(insertSql('turns', TURNS, { keys: TURN_KEYS, set: turnMerge }));
  // A turn's children are deleted by (run, item key, turn).
  const ofTurn = (table: string) => s(`DELETE FROM ${table} WHERE run_id = ? AND item_key = ? AND turn = ?`);
  const deleteSources = ofTurn('sources');
  const insertSource = s(insertSql('sources', SOURCES));
  const deleteFollowups = ofTurn('suggested_followups');
  const insertFollowup = s(insertSql('suggested_followups', FOLLOWUPS));
  return (ref: ItemRef, turn: number, r: TurnRecord): void => {
    const { error, stats } = r;
    // Literals without a spread here and below: these run several times per question, and a spread costs
    // microseconds (a spread then 30 more fields makes an object in dictionary mode).
    upsertTurn.run(bindTurn({
      runId: ref.runId,
      itemKey: ref.itemKey,
      turn,
      text: r.text,
      questionId: r.questionId ?? null,
      state: r.state,
      errorCode: error?.code ?? null,
      errorRawCode: error?.rawCode ?? null,
      errorMessage: error?.message ?? null,
      errorTitle: error?.title ?? null,
      errorDetails: error?.details ?? null,
      errorRetryTime: error?.retryTime ?? null,
      clientError: redacted(r.clientError),
      title: r.title ?? null,
      answer: r.answer ?? null,
      sentAt: r.sentAt ?? null,
      observedEndAt: r.observedEndAt ?? null,
      serverCreatedAt: r.serverCreatedAt ?? null,
      serverUpdatedAt: r.serverUpdatedAt ?? null,
      serverMs: r.serverMs ?? null,
      serverMsSource: r.serverMsSource ?? null,
      wallMs: r.wallMs ?? null,
      polls: r.polls,
      timeMillis: stats?.timeMillis ?? null,
      toolCalls: stats?.toolCalls ?? null,
      totalInputTokens: stats?.totalInputTokens ?? null,
      cachedTokens: stats?.cachedTokens ?? null,
      cacheCreationInputTokens: stats?.cacheCreationInputTokens ?? null,
      promptTokens: stats?.promptTokens ?? null,
      completionTokens: stats?.completionTokens ?? null,
      totalTokens: stats?.totalTokens ?? null,
      credits: stats?.credits ?? null,
      anomalies: r.anomalies && r.anomalies.length > 0 ? JSON.stringify(r.anomalies) : null,
    }));
    if (r.sources !== undefined) {
      deleteSources.run([ref.runId, ref.itemKey, turn]);
      r.sources.forEach((src, position) => insertSource.run(bindSource({ runId: ref.runId, itemKey: ref.itemKey, turn, position, type: src.type, link: src.link, label: src.label })));
    }
    if (r.suggestedFollowups !== undefined) {
      deleteFollowups.run([ref.runId, ref.itemKey, turn]);
      r.suggestedFollowups.forEach((text, position) => insertFollowup.run(bindFollowup({ runId: ref.runId, itemKey: ref.itemKey, turn, position, text })));
    }
  };
}

/** Writes a search item's one row, replacing the one an earlier attempt wrote. */
function searchWriter(s: Prepare) {
  const upsertSearch = s(insertSql('searches', SEARCHES, { keys: ['run_id', 'item_key'] }));
  return (ref: ItemRef, search: SearchRecord): void => {
    upsertSearch.run(
      bindSearch({
        runId: ref.runId,
        itemKey: ref.itemKey,
        query: search.query,
        params: withoutSecretKeys(search.params) as Record<string, unknown>,
        verdict: search.verdict,
        matchCount: search.matchCount ?? null,
        counted: search.counted,
        countedByType: search.countedByType,
        repositories: search.repositories,
        files: search.files,
        repositoriesCount: search.repositoriesCount ?? null,
        exhaustive: search.exhaustive ?? null,
        durationMs: search.durationMs ?? null,
        wallMs: search.wallMs,
        timeToFirstEventMs: search.timeToFirstEventMs ?? null,
        timeToFirstMatchMs: search.timeToFirstMatchMs ?? null,
        skipped: search.skipped,
        alert: search.alert ?? null,
        error: redacted(search.error),
        httpStatus: search.httpStatus ?? null,
      }),
    );
  };
}

/** Replaces the item's expectations. */
function expectationsWriter(s: Prepare) {
  const deleteExpectations = s('DELETE FROM expectations WHERE run_id = ? AND item_key = ?');
  const insertExpectation = s(insertSql('expectations', EXPECTATIONS));
  return (ref: ItemRef, results: ExpectationResult[]): void => {
    deleteExpectations.run([ref.runId, ref.itemKey]);
    results.forEach((e, position) => {
      insertExpectation.run(bindExpectation({ runId: ref.runId, itemKey: ref.itemKey, position, name: e.name, passed: e.passed, reason: e.reason, turn: e.turn ?? null }));
    });
  };
}

/** What a target's recovery and quota checks observe: a quota snapshot, a conversation no item owns, a create that was lost. */
function targetEventWriters(s: Prepare) {
  const insertQuota = s(insertSql('quota_snapshots', QUOTA_SNAPSHOTS));
  const insertUnowned = s(insertSql('unowned_conversations', UNOWNED_CONVERSATIONS, 'ignore'));
  const insertLostCreate = s(insertSql('lost_creates', LOST_CREATES));
  return {
    quota(runId: number, target: string, quota: QuotaUsage, at: string): void {
      insertQuota.run(bindQuota({ runId, target, at, totalQuota: quota.totalQuota, quotaLimit: quota.quotaLimit, resetTime: quota.resetTime ?? null }));
    },

    unowned(runId: number, target: string, conversation: UnownedConversation, foundAt: string): void {
      insertUnowned.run(bindUnowned({ runId, target, conversationRef: conversation.ref, text: conversation.text, createdAt: conversation.createdAt ?? null, foundAt }));
    },

    lostCreate(runId: number, target: string, text: string, sentAt: string): void {
      insertLostCreate.run(bindLostCreate({ runId, target, text, sentAt }));
    },
  };
}
