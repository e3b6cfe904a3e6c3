// Apart from model.ts so that reading stats from the database loads no zod.
import type { Stats } from '../model/conversation.js';

/** Stats fields as the legacy API and the database both name them; a missing or null field was not measured. */
export type SnakeCaseStats = Partial<Record<
  | 'time_millis'
  | 'tool_calls'
  | 'total_input_tokens'
  | 'cached_tokens'
  | 'cache_creation_input_tokens'
  | 'prompt_tokens'
  | 'completion_tokens'
  | 'total_tokens'
  | 'credits',
  number | null
>>;

const CAMEL: ReadonlyArray<[keyof SnakeCaseStats, keyof Stats]> = [
  ['time_millis', 'timeMillis'],
  ['tool_calls', 'toolCalls'],
  ['total_input_tokens', 'totalInputTokens'],
  ['cached_tokens', 'cachedTokens'],
  ['cache_creation_input_tokens', 'cacheCreationInputTokens'],
  ['prompt_tokens', 'promptTokens'],
  ['completion_tokens', 'completionTokens'],
  ['total_tokens', 'totalTokens'],
  ['credits', 'credits'],
];

/** The reply's stats, each figure it reported; undefined when it reported none (an empty `stats` object). */
export function statsFromSnakeCase(s: SnakeCaseStats): Stats | undefined {
  const stats: Stats = {};
  for (const [snake, camel] of CAMEL) {
    const value = s[snake];
    if (typeof value === 'number') stats[camel] = value;
  }
  return Object.keys(stats).length > 0 ? stats : undefined;
}

// Largest value each figure can truly take for one answer (30 days of server time, ten billion tokens, ten
// million credits): a larger one is a server or proxy bug, and one such figure would swamp every mean.
const MOST: Readonly<Record<keyof SnakeCaseStats, number>> = {
  time_millis: 30 * 24 * 3_600_000,
  tool_calls: 1_000_000,
  total_input_tokens: 1e10,
  cached_tokens: 1e10,
  cache_creation_input_tokens: 1e10,
  prompt_tokens: 1e10,
  completion_tokens: 1e10,
  total_tokens: 1e10,
  credits: 1e7,
};

/** The figures of a reply's stats that cannot be true (negative, not finite, absurdly large), described. */
export function impossibleStats(s: SnakeCaseStats): string[] {
  const found: string[] = [];
  for (const [field, most] of Object.entries(MOST) as Array<[keyof SnakeCaseStats, number]>) {
    const value = s[field];
    if (value === null || value === undefined) continue;
    if (!Number.isFinite(value)) found.push(`stats.${field} ${value} is not finite`);
    else if (value < 0) found.push(`stats.${field} ${value} is negative`);
    else if (value > most) found.push(`stats.${field} ${value} is larger than any answer can take (${most})`);
  }
  return found;
}
