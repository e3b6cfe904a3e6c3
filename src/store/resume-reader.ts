import type Database from 'better-sqlite3';
import type { QuestionError } from '../model/conversation.js';
import type { ItemOutcome } from '../model/item.js';
import { isPartialAnswer } from '../model/partial.js';
import type { ResumeItem, ResumeState, ResumeTurn, TargetInfo } from '../model/run.js';
import { decoder, pick, selectList } from './columns.js';
import { type StoredTurn, type TurnsOf, prepareItemRows } from './item-rows.js';
import { runRow } from './run-lookup.js';
import { ITEMS, TARGETS, storedStats } from './tables.js';

// What a resumed run reads back of itself: the run, its targets, its items and (of the items still to run,
// or of all) their turns.

const TARGET_READ = pick(TARGETS, 'name', 'url', 'api', 'emulated');
const ITEM_READ = pick(ITEMS, 'itemKey', 'itemStatus', 'outcome', 'conversationRef', 'deletedAt');

const readTarget = decoder(TARGET_READ);

export type RunHeaderState = Omit<ResumeState, 'items'>;

/** Prepared once with the recorder: a resume reads its items with no SQL parsing. */
export function prepareResumeReader(db: Database.Database) {
  const s = (sql: string) => db.prepare<[{ runId: number }]>(sql);
  const selectTargets = s(`SELECT ${selectList(TARGET_READ)} FROM targets WHERE run_id = @runId ORDER BY rowid`);
  const itemRows = prepareItemRows(db, ITEM_READ);

  return {
    header(runId: number): RunHeaderState | undefined {
      const run = runRow(db, runId);
      if (run === undefined) return undefined;
      const targets = selectTargets.all({ runId }).map((t): TargetInfo => readTarget(t));
      return {
        runId,
        status: run.status,
        info: {
          label: run.label ?? undefined,
          suiteName: run.suiteName,
          suitePath: run.suitePath,
          suiteHash: run.suiteHash,
          dsbenchVersion: run.dsbenchVersion,
          options: run.options,
          startedAt: run.startedAt,
          ...(run.groupId !== null &&
            run.shardIndex !== null && {
              group: { id: run.groupId, label: run.groupLabel ?? '', shardIndex: run.shardIndex, shardCount: run.shardCount ?? run.shardIndex },
            }),
        },
        targets,
      };
    },

    /**
     * Every item of the run in plan order, one at a time (`each` must not use this connection: the items
     * are read by a cursor), with its turns: all of them, or only those of items not done.
     */
    items(runId: number, turnsOf: TurnsOf, each: (item: ResumeItem) => void): void {
      itemRows(runId, turnsOf, (i, turns) =>
        each({
          key: i.itemKey,
          status: i.itemStatus,
          outcome: (i.outcome ?? undefined) as ItemOutcome | undefined,
          conversationRef: i.conversationRef ?? undefined,
          deleted: i.deletedAt !== null,
          turns: turns.map(resumeTurn),
        }),
      );
    },
  };
}

const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

/** A stored turn as the runner recorded it; stats only where they were recorded (absent, never zeros). */
function resumeTurn(row: StoredTurn): ResumeTurn {
  const error: QuestionError | undefined =
    row.errorCode === null
      ? undefined
      : {
          code: row.errorCode as QuestionError['code'],
          rawCode: row.errorRawCode ?? '',
          message: row.errorMessage ?? '',
          ...(row.errorTitle !== null && { title: row.errorTitle }),
          ...(row.errorDetails !== null && { details: row.errorDetails }),
          ...(row.errorRetryTime !== null && { retryTime: row.errorRetryTime }),
        };
  return {
    turn: row.turn,
    state: row.state as ResumeTurn['state'],
    text: row.text,
    questionId: opt(row.questionId),
    sentAt: opt(row.sentAt),
    error,
    clientError: opt(row.clientError),
    title: opt(row.title),
    answer: opt(row.answer),
    ...(isPartialAnswer(row.state, row.answer) && { partial: true }),
    sources: row.sources.length > 0 ? row.sources : undefined,
    suggestedFollowups: row.suggestedFollowups.length > 0 ? row.suggestedFollowups : undefined,
    stats: storedStats(row),
    observedEndAt: opt(row.observedEndAt),
    serverCreatedAt: opt(row.serverCreatedAt),
    serverUpdatedAt: opt(row.serverUpdatedAt),
    serverMs: opt(row.serverMs),
    serverMsSource: opt(row.serverMsSource) as ResumeTurn['serverMsSource'],
    wallMs: opt(row.wallMs),
    polls: row.polls,
  };
}
