import type { QuestionExportRow } from '../store/queries.js';
import { type Column, text } from './csv.js';
import { checksOfTurn, reasons, verdictOf } from './expectations.js';

type Row = QuestionExportRow;

const turnChecks = (r: Row) => checksOfTurn(r.expectations, r.turn, r.lastTurn);

/** questions.csv: one row per asked question (turn). The order and names of these columns are stable. */
export const QUESTION_COLUMNS: ReadonlyArray<Column<Row>> = [
  { name: 'run_id', value: (r) => r.runId },
  { name: 'target', value: (r) => r.target },
  { name: 'question_id', value: (r) => r.suiteItemId },
  { name: 'repeat', value: (r) => r.repeat },
  { name: 'turn', value: (r) => r.turn },
  { name: 'item_key', value: (r) => r.itemKey },
  { name: 'tags', value: (r) => r.tags.join(' ') },
  { name: 'item_status', value: (r) => r.itemStatus },
  { name: 'item_outcome', value: (r) => r.outcome },
  { name: 'state', value: (r) => r.state },
  { name: 'error_code', value: (r) => r.errorCode },
  { name: 'error_raw_code', value: (r) => text(r.errorRawCode) },
  { name: 'error_message', value: (r) => text(r.errorMessage) },
  { name: 'error_title', value: (r) => text(r.errorTitle) },
  { name: 'error_details', value: (r) => text(r.errorDetails) },
  { name: 'error_retry_time', value: (r) => r.errorRetryTime },
  { name: 'client_error', value: (r) => text(r.clientError) },
  { name: 'wall_ms', value: (r) => r.wallMs },
  { name: 'server_ms', value: (r) => r.serverMs },
  { name: 'server_ms_source', value: (r) => r.serverMsSource },
  { name: 'polls', value: (r) => r.polls },
  { name: 'sent_at', value: (r) => r.sentAt },
  { name: 'observed_end_at', value: (r) => r.observedEndAt },
  { name: 'server_created_at', value: (r) => r.serverCreatedAt },
  { name: 'server_updated_at', value: (r) => r.serverUpdatedAt },
  { name: 'time_millis', value: (r) => r.timeMillis },
  { name: 'tool_calls', value: (r) => r.toolCalls },
  { name: 'total_input_tokens', value: (r) => r.totalInputTokens },
  { name: 'cached_tokens', value: (r) => r.cachedTokens },
  { name: 'cache_creation_input_tokens', value: (r) => r.cacheCreationInputTokens },
  { name: 'prompt_tokens', value: (r) => r.promptTokens },
  { name: 'completion_tokens', value: (r) => r.completionTokens },
  { name: 'total_tokens', value: (r) => r.totalTokens },
  { name: 'credits', value: (r) => r.credits },
  { name: 'expect_verdict', value: (r) => verdictOf(turnChecks(r)) },
  { name: 'expect_reasons', value: (r) => text(reasons(turnChecks(r))) },
  { name: 'item_expect_verdict', value: (r) => verdictOf(r.expectations) },
  { name: 'conversation_ref', value: (r) => r.conversationRef },
  { name: 'server_question_id', value: (r) => r.questionId },
  { name: 'question', value: (r) => text(r.text) },
  { name: 'title', value: (r) => text(r.title) },
  { name: 'answer', value: (r) => text(r.answer) },
  { name: 'source_count', value: (r) => r.sourceLinks.length },
  { name: 'sources', value: (r) => text(r.sourceLinks.join('\n')) },
  { name: 'suggested_followups', value: (r) => text(r.suggestedFollowups.join('\n')) },
  { name: 'judge_score', value: (r) => r.judgeScore },
  { name: 'citations_valid', value: (r) => r.citationsValid },
  { name: 'citations_invalid', value: (r) => r.citationsInvalid },
  {
    name: 'citation_validity',
    value: (r) => (r.citationsValid + r.citationsInvalid === 0 ? null : Number((r.citationsValid / (r.citationsValid + r.citationsInvalid)).toFixed(4))),
  },
  // A partial answer (one that came with an error state) counts in the answer's length like any other.
  { name: 'answer_chars', value: (r) => r.answer?.length ?? null },
  { name: 'answer_partial', value: (r) => r.partial },
  // The instance's trace of the turn (run --trace): a link that needs a login, never a secret.
  { name: 'trace_id', value: (r) => r.traceId },
  { name: 'trace_url', value: (r) => r.traceUrl },
];
