// The column table of every shape the store writes or reads with many columns (the schema itself is
// migrations.ts's). Field names are the camelCase the readers return.
import type { Stats } from '../model/conversation.js';
import type { ItemKind, ItemStatus } from '../model/item.js';
import type { RunStatus, TargetInfo } from '../model/run.js';
import type { TraceOperation } from '../model/trace.js';
import { type RowOf, bool, column, json, nullable, num, text, textOf } from './columns.js';

const maybeText = nullable(text);
const maybeInt = nullable(num);

export const RUNS = [
  column('id', 'id', num),
  column('label', 'label', maybeText),
  column('suite_name', 'suiteName', text),
  column('suite_path', 'suitePath', text),
  column('suite_hash', 'suiteHash', text),
  column('dsbench_version', 'dsbenchVersion', text),
  column('options_json', 'options', json<Record<string, unknown>>()),
  column('started_at', 'startedAt', text),
  column('ended_at', 'endedAt', maybeText),
  column('status', 'status', textOf<RunStatus>()),
  column('group_id', 'groupId', maybeText),
  column('group_label', 'groupLabel', maybeText),
  column('shard_index', 'shardIndex', maybeInt),
  column('shard_count', 'shardCount', maybeInt),
  column('partial', 'partial', bool),
  column('rerun_of', 'rerunOf', maybeInt),
  column('confirm_of', 'confirmOf', maybeInt),
  column('nothing_asked', 'nothingAsked', bool),
  column('stop_reason', 'stopReason', maybeText),
  column('compared_exit', 'comparedExit', maybeInt),
] as const;
export type RunColumns = RowOf<typeof RUNS>;

export const TARGETS = [
  column('run_id', 'runId', num),
  column('name', 'name', text),
  column('url', 'url', text),
  column('api', 'api', textOf<TargetInfo['api']>()),
  column('emulated', 'emulated', bool),
  column('emulator', 'emulator', bool),
  column('product_version', 'productVersion', maybeText),
  column('product_version_error', 'productVersionError', maybeText),
  column('product_version_on_resume', 'productVersionOnResume', maybeText),
] as const;

// Named as the exports name an item's columns (an item's `key` and `status` beside a turn's).
export const ITEMS = [
  column('run_id', 'runId', num),
  column('key', 'itemKey', text),
  column('position', 'position', num),
  column('kind', 'kind', textOf<ItemKind>()),
  column('target', 'target', text),
  column('suite_item_id', 'suiteItemId', text),
  column('repeat', 'repeat', num),
  column('tags_json', 'tags', json<string[]>()),
  column('status', 'itemStatus', textOf<ItemStatus>()),
  column('outcome', 'outcome', maybeText),
  column('message', 'message', maybeText),
  column('conversation_ref', 'conversationRef', maybeText),
  column('conversation_created_at', 'conversationCreatedAt', maybeText),
  column('started_at', 'startedAt', maybeText),
  column('ended_at', 'endedAt', maybeText),
  column('deleted_at', 'deletedAt', maybeText),
  column('definition_hash', 'definitionHash', maybeText),
] as const;

/** The stats of an answer, one column each; recorded whole or not at all. */
const STATS = [
  column('time_millis', 'timeMillis', maybeInt),
  column('tool_calls', 'toolCalls', maybeInt),
  column('total_input_tokens', 'totalInputTokens', maybeInt),
  column('cached_tokens', 'cachedTokens', maybeInt),
  column('cache_creation_input_tokens', 'cacheCreationInputTokens', maybeInt),
  column('prompt_tokens', 'promptTokens', maybeInt),
  column('completion_tokens', 'completionTokens', maybeInt),
  column('total_tokens', 'totalTokens', maybeInt),
  column('credits', 'credits', maybeInt),
] as const satisfies ReadonlyArray<{ field: keyof Stats }>;

export const TURNS = [
  column('run_id', 'runId', num),
  column('item_key', 'itemKey', text),
  column('turn', 'turn', num),
  column('text', 'text', text),
  column('question_id', 'questionId', maybeText),
  column('state', 'state', text),
  column('error_code', 'errorCode', maybeText),
  column('error_raw_code', 'errorRawCode', maybeText),
  column('error_message', 'errorMessage', maybeText),
  column('error_title', 'errorTitle', maybeText),
  column('error_details', 'errorDetails', maybeText),
  column('error_retry_time', 'errorRetryTime', maybeText),
  column('client_error', 'clientError', maybeText),
  column('title', 'title', maybeText),
  column('answer', 'answer', maybeText),
  column('sent_at', 'sentAt', maybeText),
  column('observed_end_at', 'observedEndAt', maybeText),
  column('server_created_at', 'serverCreatedAt', maybeText),
  column('server_updated_at', 'serverUpdatedAt', maybeText),
  column('server_ms', 'serverMs', maybeInt),
  column('server_ms_source', 'serverMsSource', maybeText),
  column('wall_ms', 'wallMs', maybeInt),
  column('polls', 'polls', num),
  ...STATS,
  // The reply's impossible figures: a JSON array of descriptions as stored (reports read the text).
  column('anomalies', 'anomalies', maybeText),
] as const;
export type TurnColumns = RowOf<typeof TURNS>;

export const TURN_KEYS = ['run_id', 'item_key', 'turn'];
const TURN_REPLACED = new Set(['text', 'state', 'polls']);
const STAT_COLUMNS = new Set<string>(STATS.map((c) => c.name));

/**
 * How a turn written again merges with what is stored: `text`, `state` and `polls` take the new value, any
 * other field a record leaves out keeps the stored one (an observation is never erased by a later, less
 * complete one), and stats of a reply with impossible figures are dropped whole, those of earlier polls too.
 */
export function turnMerge(name: string): string {
  if (TURN_REPLACED.has(name)) return `excluded.${name}`;
  if (STAT_COLUMNS.has(name)) return `CASE WHEN excluded.anomalies IS NULL THEN coalesce(excluded.${name}, ${name}) END`;
  return `coalesce(excluded.${name}, ${name})`;
}

/** The stats of a stored turn, each figure that was recorded; undefined when none was. */
export function storedStats(row: RowOf<typeof STATS>): Stats | undefined {
  const stats: Stats = {};
  for (const c of STATS) {
    const value = row[c.field];
    if (value !== null) stats[c.field] = value;
  }
  return Object.keys(stats).length > 0 ? stats : undefined;
}

export const SOURCES = [
  column('run_id', 'runId', num),
  column('item_key', 'itemKey', text),
  column('turn', 'turn', num),
  column('position', 'position', num),
  column('type', 'type', text),
  column('link', 'link', text),
  column('label', 'label', text),
] as const;

export const FOLLOWUPS = [
  column('run_id', 'runId', num),
  column('item_key', 'itemKey', text),
  column('turn', 'turn', num),
  column('position', 'position', num),
  column('text', 'text', text),
] as const;

export const SEARCHES = [
  column('run_id', 'runId', num),
  column('item_key', 'itemKey', text),
  column('query', 'query', text),
  column('params_json', 'params', json<Record<string, unknown>>()),
  column('verdict', 'verdict', text),
  column('match_count', 'matchCount', maybeInt),
  column('counted', 'counted', num),
  column('counted_by_type_json', 'countedByType', json<Record<string, number>>()),
  column('repositories', 'repositories', num),
  column('files', 'files', num),
  column('repositories_count', 'repositoriesCount', maybeInt),
  column('exhaustive', 'exhaustive', nullable(bool)),
  column('duration_ms', 'durationMs', maybeInt),
  column('wall_ms', 'wallMs', num),
  column('time_to_first_event_ms', 'timeToFirstEventMs', maybeInt),
  column('time_to_first_match_ms', 'timeToFirstMatchMs', maybeInt),
  column('skipped_json', 'skipped', json<Array<{ reason: string; title?: string; severity?: string }>>()),
  column('alert', 'alert', maybeText),
  column('error', 'error', maybeText),
  column('http_status', 'httpStatus', maybeInt),
] as const;
export type SearchColumns = RowOf<typeof SEARCHES>;

export const TRACES = [
  column('run_id', 'runId', num),
  column('item_key', 'itemKey', text),
  column('turn', 'turn', maybeInt),
  column('operation', 'operation', textOf<TraceOperation>()),
  column('trace_id', 'traceId', text),
  column('url', 'url', maybeText),
  column('note', 'note', maybeText),
] as const;

export const EXPECTATIONS = [
  column('run_id', 'runId', num),
  column('item_key', 'itemKey', text),
  column('position', 'position', num),
  column('name', 'name', text),
  column('passed', 'passed', bool),
  column('reason', 'reason', text),
  column('turn', 'turn', maybeInt),
] as const;

export const QUOTA_SNAPSHOTS = [
  column('run_id', 'runId', num),
  column('target', 'target', text),
  column('at', 'at', text),
  column('total_quota', 'totalQuota', num),
  column('quota_limit', 'quotaLimit', num),
  column('reset_time', 'resetTime', maybeText),
] as const;

export const UNOWNED_CONVERSATIONS = [
  column('run_id', 'runId', num),
  column('target', 'target', text),
  column('conversation_ref', 'conversationRef', text),
  column('text', 'text', text),
  column('created_at', 'createdAt', maybeText),
  column('found_at', 'foundAt', text),
] as const;

export const LOST_CREATES = [
  column('run_id', 'runId', num),
  column('target', 'target', text),
  column('text', 'text', text),
  column('sent_at', 'sentAt', text),
] as const;

/** An attempt dsbench stopped on an interruption, kept as it ended when a resume ran its item again. */
export const REQUEUED_ATTEMPTS = [
  column('run_id', 'runId', num),
  column('item_key', 'itemKey', text),
  column('attempt', 'attempt', num),
  column('target', 'target', text),
  column('kind', 'kind', textOf<ItemKind>()),
  column('outcome', 'outcome', text),
  column('message', 'message', maybeText),
  column('conversation_ref', 'conversationRef', maybeText),
  column('turns', 'turns', num),
  column('texts_json', 'texts', json<string[]>()),
  column('credits', 'credits', nullable(num)),
  column('started_at', 'startedAt', maybeText),
  column('ended_at', 'endedAt', maybeText),
  column('requeued_at', 'requeuedAt', text),
] as const;

export const BASELINES = [
  column('name', 'name', text),
  column('run_id', 'runId', num),
  column('blessed_at', 'blessedAt', text),
  column('forced', 'forced', bool),
] as const;
