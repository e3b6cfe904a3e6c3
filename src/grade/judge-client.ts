import { z } from 'zod';
import { headersFor, normalizeEndpoint, type Connection, type Env } from '../config/credentials.js';
import type { Judge } from '../config/suite.js';
import { DsbenchError, ProtocolError, UsageError } from '../http/errors.js';
import { registerSecret } from '../http/redact.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import { Transport } from '../http/transport.js';
import { CLIENT_NAME, VERSION } from '../version.js';
import type { JudgeReply } from './store.js';

/** Fixed so that a model that honours seeds answers the same prompt the same way. */
export const JUDGE_SEED = 1_234_567;
/** Verdicts are short; well under the platform's cap of 4,000. */
const MAX_TOKENS = 1_000;

/** Where the judge is and how to reach it; never stored (the headers hold the token). */
export interface JudgeEndpoint {
  kind: 'instance' | 'external';
  /** Base of `/chat/completions` and `/models`, e.g. `https://sg.example.com/.api/llm`. */
  base: string;
  headers: Record<string, string>;
  /** From DSBENCH_JUDGE_MODEL, else the suite's; else the first model the endpoint lists. */
  model?: string | undefined;
}

/**
 * The judge: the target instance's own LLM API with the target's token, unless DSBENCH_JUDGE_ENDPOINT
 * names an OpenAI-compatible endpoint (token DSBENCH_JUDGE_TOKEN, sent as Bearer). Endpoint, token and
 * model come from the environment or the suite, never from a flag.
 */
export function resolveJudgeEndpoint(judge: Judge, target: Connection | undefined, env: Env): JudgeEndpoint {
  const model = env.DSBENCH_JUDGE_MODEL?.trim() || judge.model;
  const external = env.DSBENCH_JUDGE_ENDPOINT?.trim();
  if (external) {
    const token = env.DSBENCH_JUDGE_TOKEN?.trim();
    registerSecret(token);
    const headers: Record<string, string> = { 'user-agent': `${CLIENT_NAME}/${VERSION}` };
    if (token) headers.authorization = /^bearer\s/i.test(token) ? token : `Bearer ${token}`;
    return { kind: 'external', base: normalizeEndpoint(external, 'DSBENCH_JUDGE_ENDPOINT'), headers, model };
  }
  if (judge.endpoint === 'external') {
    throw new UsageError('the suite sets judge.endpoint: external, but DSBENCH_JUDGE_ENDPOINT is not set; set it (and DSBENCH_JUDGE_TOKEN, DSBENCH_JUDGE_MODEL) or use endpoint: instance');
  }
  if (!target) throw new UsageError('no instance to grade with: give --target or SRC_ENDPOINT, or set DSBENCH_JUDGE_ENDPOINT');
  return { kind: 'instance', base: `${target.endpoint}/.api/llm`, headers: headersFor(target, 'stream'), model };
}

const ModelsSchema = z.object({ data: z.array(z.object({ id: z.string() })) });
const CompletionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }), finish_reason: z.string().nullable().optional() })).min(1),
  usage: z.object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() }).optional(),
});

/** An OpenAI-compatible chat completions client over the project's one transport and retry policy. */
export class JudgeClient {
  private readonly transport: Transport;
  private modelChoice?: Promise<string>;

  constructor(
    readonly endpoint: JudgeEndpoint,
    options: { retry?: Partial<RetryPolicy> | undefined; timeoutMs?: number | undefined; connections?: number } = {},
  ) {
    this.transport = new Transport({
      endpoint: endpoint.base,
      headers: endpoint.headers,
      connections: options.connections ?? 4,
      timeoutMs: options.timeoutMs ?? 120_000,
      ...(options.retry && { retry: options.retry }),
    });
  }

  /** The model to grade with: the configured one, else the first the endpoint lists (asked once). */
  model(signal?: AbortSignal): Promise<string> {
    // A failed lookup is not remembered: the next turn asks again.
    this.modelChoice ??= this.endpoint.model !== undefined
      ? Promise.resolve(this.endpoint.model)
      : this.firstModel(signal).catch((error: unknown) => {
          this.modelChoice = undefined;
          throw error;
        });
    return this.modelChoice;
  }

  /** One user message (the platform allows no system role), temperature 0, a fixed seed. */
  async complete(prompt: string, signal?: AbortSignal): Promise<JudgeReply> {
    const model = await this.model(signal);
    const body = { model, messages: [{ role: 'user', content: prompt }], temperature: 0, seed: JUDGE_SEED, max_tokens: MAX_TOKENS, stream: false };
    const { json } = await this.call(() => this.transport.requestJson({ operation: 'judge.chat', method: 'POST', path: '/chat/completions', body, ...(signal && { signal }) }));
    const parsed = CompletionSchema.safeParse(json);
    if (!parsed.success) {
      throw new ProtocolError({ operation: 'judge.chat', method: 'POST', endpoint: `${this.endpoint.base}/chat/completions` }, 'the reply is not a chat completion', JSON.stringify(json).slice(0, 200));
    }
    const choice = parsed.data.choices[0]!;
    return {
      content: choice.message.content ?? '',
      promptTokens: parsed.data.usage?.prompt_tokens,
      completionTokens: parsed.data.usage?.completion_tokens,
    };
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  private async firstModel(signal?: AbortSignal): Promise<string> {
    const { json } = await this.call(() => this.transport.requestJson({ operation: 'judge.models', method: 'GET', path: '/models', ...(signal && { signal }) }));
    const first = ModelsSchema.safeParse(json).data?.data[0]?.id;
    if (!first) throw new UsageError(`the judge at ${this.endpoint.base} lists no models; set judge.model in the suite or DSBENCH_JUDGE_MODEL`);
    return first;
  }

  /** Errors name the judge, so a grade's error says which endpoint failed. */
  private async call<T>(f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (error) {
      if (error instanceof DsbenchError) throw new JudgeError(`judge at ${this.endpoint.base}: ${error.message}`, error);
      throw error;
    }
  }
}

export class JudgeError extends DsbenchError {
  constructor(message: string, cause: DsbenchError) {
    super(message, cause.exitCode, { cause });
    this.name = 'JudgeError';
  }
}
