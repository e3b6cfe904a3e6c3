import type Database from 'better-sqlite3';
import type { QuestionError, Source } from '../model/conversation.js';
import type { ItemOutcome } from '../model/item.js';
import { isPartialAnswer } from '../model/partial.js';
import type { ResumeItem, ResumeState, ResumeTurn, TargetInfo } from '../model/run.js';
import { decoder, pick, selectList } from './columns.js';
import { FOLLOWUPS, ITEMS, RUNS, SOURCES, TARGETS, TURNS, type TurnColumns, storedStats } from './tables.js';

// What a resumed run reads back of itself: the run, its targets, its items and (of the items still to run,
// or of all) their turns.

const UNFINISHED = `SELECT key FROM items WHERE run_id = @runId AND status <> 'done'`;

const TARGET_READ = pick(TARGETS, 'name', 'url', 'api', 'emulated');
const ITEM_READ = pick(ITEMS, 'itemKey', 'itemStatus', 'outcome', 'conversationRef', 'deletedAt');
const SOURCE_READ = pick(SOURCES, 'itemKey', 'turn', 'type', 'link', 'label');
const FOLLOWUP_READ = pick(FOLLOWUPS, 'itemKey', 'turn', 'text');

const readRunRow = decoder(RUNS);
const readTarget = decoder(TARGET_READ);
const readItem = decoder(ITEM_READ);
const readTurn = decoder(TURNS);
const readSource = decoder(SOURCE_READ);
const readFollowup = decoder(FOLLOWUP_READ);

export type RunHeaderState = Omit<ResumeState, 'items'>;

/** Prepared once with the recorder: a resume reads with no SQL parsing. */
export function prepareResumeReader(db: Database.Database) {
  const s = (sql: string) => db.prepare<[{ runId: number }]>(sql);
  // A child of only the unfinished items, or of all of them.
  const ofItems = (table: string, columns: string, unfinished: boolean, order: string) =>
    s(`SELECT ${columns} FROM ${table} WHERE run_id = @runId${unfinished ? ` AND item_key IN (${UNFINISHED})` : ''} ORDER BY ${order}`);
  const children = (unfinished: boolean) => ({
    turns: ofItems('turns', selectList(TURNS), unfinished, 'item_key, turn'),
    sources: ofItems('sources', selectList(SOURCE_READ), unfinished, 'item_key, turn, position'),
    followups: ofItems('suggested_followups', selectList(FOLLOWUP_READ), unfinished, 'item_key, turn, position'),
  });
  const selectRun = s(`SELECT ${selectList(RUNS)} FROM runs WHERE id = @runId`);
  const selectTargets = s(`SELECT ${selectList(TARGET_READ)} FROM targets WHERE run_id = @runId ORDER BY rowid`);
  const selectItems = s(`SELECT ${selectList(ITEM_READ)} FROM items WHERE run_id = @runId ORDER BY position`);
  const all = children(false);
  const unfinished = children(true);

  return {
    header(runId: number): RunHeaderState | undefined {
      const row = selectRun.get({ runId });
      if (row === undefined) return undefined;
      const run = readRunRow(row);
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
    items(runId: number, turnsOf: 'all' | 'unfinished', each: (item: ResumeItem) => void): void {
      const read = turnsOf === 'all' ? all : unfinished;
      const sources = groupByTurn(read.sources.all({ runId }).map(readSource), ({ type, link, label }): Source => ({ type, link, label }));
      const followups = groupByTurn(read.followups.all({ runId }).map(readFollowup), (r) => r.text);
      const turnsByItem = new Map<string, ResumeTurn[]>();
      for (const row of read.turns.all({ runId })) {
        const turn = readTurn(row);
        let list = turnsByItem.get(turn.itemKey);
        if (!list) turnsByItem.set(turn.itemKey, (list = []));
        const key = turnKey(turn);
        list.push(resumeTurn(turn, sources.get(key), followups.get(key)));
      }
      for (const row of selectItems.iterate({ runId })) {
        const i = readItem(row);
        each({
          key: i.itemKey,
          status: i.itemStatus,
          outcome: (i.outcome ?? undefined) as ItemOutcome | undefined,
          conversationRef: i.conversationRef ?? undefined,
          deleted: i.deletedAt !== null,
          turns: turnsByItem.get(i.itemKey) ?? [],
        });
      }
    },
  };
}

interface ChildRow {
  itemKey: string;
  turn: number;
}

const turnKey = (row: ChildRow) => `${row.itemKey}\u0000${row.turn}`;

function groupByTurn<R extends ChildRow, T>(rows: R[], pick: (row: R) => T): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const key = turnKey(row);
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    list.push(pick(row));
  }
  return groups;
}

const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

/** A stored turn as the runner recorded it; stats only where they were recorded (absent, never zeros). */
function resumeTurn(row: TurnColumns, sources: Source[] | undefined, followups: string[] | undefined): ResumeTurn {
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
    sources,
    suggestedFollowups: followups,
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
