// Apart from model.ts so that reading stats from the database loads no zod.
import type { Stats } from './model.js';

/** Stats fields as the legacy API and the database both name them; a missing field is read as 0. */
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

export function statsFromSnakeCase(s: SnakeCaseStats): Stats {
  return {
    timeMillis: s.time_millis ?? 0,
    toolCalls: s.tool_calls ?? 0,
    totalInputTokens: s.total_input_tokens ?? 0,
    cachedTokens: s.cached_tokens ?? 0,
    cacheCreationInputTokens: s.cache_creation_input_tokens ?? 0,
    promptTokens: s.prompt_tokens ?? 0,
    completionTokens: s.completion_tokens ?? 0,
    totalTokens: s.total_tokens ?? 0,
    credits: s.credits ?? 0,
  };
}
