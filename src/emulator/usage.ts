import type { Rng } from './random.js';

/** Token and credit statistics of one question, the legacy API's `stats`. */
export interface Usage {
  timeMillis: number;
  toolCalls: number;
  totalInputTokens: number;
  cachedTokens: number;
  cacheCreationInputTokens: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  credits: number;
}

/** Shared system prompt and tool definitions, served from the model's prompt cache. */
const SYSTEM_PROMPT_TOKENS = 12_000;
const TOKENS_PER_TOOL_CALL = 900;
const TOKENS_PER_HIT = 120;
export const TOKENS_PER_CREDIT = 10_000;

export function zeroUsage(timeMillis = 0, toolCalls = 0): Usage {
  return {
    timeMillis,
    toolCalls,
    totalInputTokens: 0,
    cachedTokens: 0,
    cacheCreationInputTokens: 0,
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
    credits: 0,
  };
}

export interface UsageInput {
  timeMillis: number;
  toolCalls: number;
  hits: number;
  questionChars: number;
  /** Characters the model wrote (the answer; 0 when it failed before answering). */
  outputChars: number;
}

/**
 * The documented example (13632 input, 13694 total, 156 completion) follows no simple rule,
 * so the emulator uses one that a client can check:
 *   prompt_tokens               = ceil(question chars / 4)
 *   cached_tokens               = system prompt (12000) + jitter
 *   cache_creation_input_tokens = 900 per tool call + 120 per hit + jitter
 *   total_input_tokens          = prompt_tokens + cached_tokens + cache_creation_input_tokens
 *   completion_tokens           = ceil(output chars / 4) + reasoning jitter
 *   total_tokens                = total_input_tokens + completion_tokens
 *   credits                     = ceil(total_tokens / 10000)   (13694 tokens -> 2, as documented)
 */
export function computeUsage(input: UsageInput, rng: Rng): Usage {
  const promptTokens = Math.ceil(input.questionChars / 4);
  const cachedTokens = SYSTEM_PROMPT_TOKENS + rng.int(0, 600);
  const cacheCreationInputTokens =
    input.toolCalls * TOKENS_PER_TOOL_CALL + input.hits * TOKENS_PER_HIT + rng.int(0, 400);
  const totalInputTokens = promptTokens + cachedTokens + cacheCreationInputTokens;
  const completionTokens = Math.ceil(input.outputChars / 4) + rng.int(20, 120);
  const totalTokens = totalInputTokens + completionTokens;
  return {
    timeMillis: input.timeMillis,
    toolCalls: input.toolCalls,
    totalInputTokens,
    cachedTokens,
    cacheCreationInputTokens,
    promptTokens,
    completionTokens,
    totalTokens,
    credits: Math.ceil(totalTokens / TOKENS_PER_CREDIT),
  };
}
