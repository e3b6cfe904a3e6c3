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
 * The platform's figures do not add up (documentation: 11 + 12,359 + 13,625 input tokens reported as
 * 13,632 and 13,694 in total with 156 completion tokens; an early guide: 14,666 tokens for 5 credits),
 * so the emulator keeps no sum either and a client cannot come to rely on one:
 *   prompt_tokens               = ceil(question chars / 4)
 *   cached_tokens               = system prompt (12000) + jitter
 *   cache_creation_input_tokens = 900 per tool call + 120 per hit + jitter
 *   total_input_tokens          = prompt_tokens + 20-100 % of cache_creation_input_tokens
 *   completion_tokens           = ceil(output chars / 4) + reasoning jitter
 *   total_tokens                = total_input_tokens + 30-100 % of completion_tokens
 *   credits                     = 1 + tool calls + 0..tool calls (per step, not per token:
 *                                 1 call gives 2 or 3 as documented, 2 calls 3 to 5 as in the guide)
 */
export function computeUsage(input: UsageInput, rng: Rng): Usage {
  const promptTokens = Math.ceil(input.questionChars / 4);
  const cachedTokens = SYSTEM_PROMPT_TOKENS + rng.int(0, 600);
  const cacheCreationInputTokens =
    input.toolCalls * TOKENS_PER_TOOL_CALL + input.hits * TOKENS_PER_HIT + rng.int(0, 400);
  const totalInputTokens = promptTokens + Math.round(cacheCreationInputTokens * (0.2 + 0.8 * rng.next()));
  const completionTokens = Math.ceil(input.outputChars / 4) + rng.int(20, 120);
  const totalTokens = totalInputTokens + Math.round(completionTokens * (0.3 + 0.7 * rng.next()));
  return {
    timeMillis: input.timeMillis,
    toolCalls: input.toolCalls,
    totalInputTokens,
    cachedTokens,
    cacheCreationInputTokens,
    promptTokens,
    completionTokens,
    totalTokens,
    credits: 1 + input.toolCalls + rng.int(0, input.toolCalls),
  };
}
