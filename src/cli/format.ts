import type { Conversation, Question, Stats } from '../model/conversation.js';

export interface TurnInfo {
  timedOut?: boolean;
  polls?: number;
  wallMs?: number;
}

/** A question as a terminal reader wants it: state, title, answer, sources, stats. */
export function formatQuestion(question: Question, info: TurnInfo = {}): string {
  const lines: string[] = [];
  const state = info.timedOut ? 'timed out (cancelled)' : question.state;
  lines.push(`\n## Q${question.index + 1}: ${question.text}`, `State: ${state}${question.error ? ` — ${question.error.code} (${question.error.rawCode}): ${question.error.message}` : ''}`);
  if (question.title) lines.push(`Title: ${question.title}`);
  if (question.answer) {
    if (question.partial) lines.push(`Partial answer: the ${question.state === 'canceled' ? 'cancel' : 'error'} stopped it after ${question.answer.length} characters`);
    lines.push('', question.answer.trimEnd(), '');
  }
  if (question.sources && question.sources.length > 0) {
    lines.push('Sources:');
    for (const source of question.sources) lines.push(`  - ${source.label} (${source.link})`);
  }
  if (question.suggestedFollowups && question.suggestedFollowups.length > 0) {
    lines.push('Suggested follow-ups:');
    for (const followup of question.suggestedFollowups) lines.push(`  - ${followup}`);
  }
  if (question.stats) lines.push(formatStats(question.stats));
  const observed = [info.wallMs !== undefined && `wall ${(info.wallMs / 1000).toFixed(1)} s (observed)`, info.polls !== undefined && `${info.polls} polls`].filter(Boolean);
  if (observed.length > 0) lines.push(observed.join(', '));
  return `${lines.join('\n')}\n`;
}

export function formatStats(stats: Stats): string {
  const figure = (value: number | undefined, unit: string) => (value === undefined ? `${unit} not reported` : `${value} ${unit}`);
  const seconds = stats.timeMillis === undefined ? 'server time not reported' : `${(stats.timeMillis / 1000).toFixed(1)} s server time`;
  const tokens = (value: number | undefined) => (value === undefined ? 'not reported' : String(value));
  return (
    `Stats: ${seconds}, ${figure(stats.toolCalls, 'tool calls')}, ` +
    // Side by side as the server reports them: its figures are not parts of each other.
    `${figure(stats.credits, 'credits')}; tokens as reported: total ${tokens(stats.totalTokens)}, input ${tokens(stats.totalInputTokens)}, ` +
    `prompt ${tokens(stats.promptTokens)}, cached ${tokens(stats.cachedTokens)}, cache creation ${tokens(stats.cacheCreationInputTokens)}, completion ${tokens(stats.completionTokens)}`
  );
}

/**
 * Where a person opens the conversation. Both APIs give only a share URL (legacy `share_url`, versioned `url`,
 * `/deepsearch/<uuid>`), which lets anyone who has it read the conversation: that is never printed.
 */
export function conversationLink(conversation: Conversation): string {
  if (!conversation.shareUrl) return '';
  return `\nIts share URL is not printed: anyone who has it can read the conversation. Open ${conversation.ref} from Deep Search's history in the web client.\n`;
}
