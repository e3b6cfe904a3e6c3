import { z } from 'zod';
import { headersFor, normalizeEndpoint, type Connection, type Env } from '../config/credentials.js';
import type { Judge } from '../config/suite.js';
import { DsbenchError, HttpStatusError, JudgeError, ProtocolError, UsageError } from '../errors/errors.js';
import { redact, registerSecret } from '../redact.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import { Transport } from '../http/transport.js';
import { CLIENT_NAME, VERSION } from '../version.js';
import type { JudgeReply } from '../model/grading.js';

/** Verdicts are short; well under the platform's cap of 4,000, and always sent: the platform's default is 16. */
export const JUDGE_MAX_TOKENS = 1_000;
/** provider::api-version::model, the only model ids the instance's LLM API accepts. */
const INSTANCE_MODEL_ID = /^[^:\s]+::[^:\s]+::[^:\s]+$/;

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
  // The platform's LLM API requires it since 5.10; other endpoints ignore a header they do not know.
  const requestedWith = { 'x-requested-with': `${CLIENT_NAME} ${VERSION}` };
  const external = env.DSBENCH_JUDGE_ENDPOINT?.trim();
  if (external) {
    const token = env.DSBENCH_JUDGE_TOKEN?.trim();
    registerSecret(token);
    const headers: Record<string, string> = { 'user-agent': `${CLIENT_NAME}/${VERSION}`, ...requestedWith };
    if (token) headers.authorization = /^bearer\s/i.test(token) ? token : `Bearer ${token}`;
    return { kind: 'external', base: normalizeEndpoint(external, 'DSBENCH_JUDGE_ENDPOINT'), headers, model };
  }
  if (judge.endpoint === 'external') {
    throw new UsageError('the suite sets judge.endpoint: external, but DSBENCH_JUDGE_ENDPOINT is not set; set it (and DSBENCH_JUDGE_TOKEN, DSBENCH_JUDGE_MODEL) or use endpoint: instance');
  }
  if (!target) throw new UsageError('no instance to grade with: give --target or SRC_ENDPOINT, or set DSBENCH_JUDGE_ENDPOINT');
  if (model !== undefined && !INSTANCE_MODEL_ID.test(model)) {
    throw new UsageError(`judge model "${model}" is not of the form provider::api-version::model (e.g. anthropic::2024-10-22::claude-sonnet-4-latest), the only form the instance's LLM API accepts; fix judge.model or DSBENCH_JUDGE_MODEL, or set DSBENCH_JUDGE_ENDPOINT for another judge`);
  }
  return { kind: 'instance', base: `${target.endpoint}/.api/llm`, headers: { ...headersFor(target, 'stream'), ...requestedWith }, model };
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

  /**
   * What the platform's LLM API accepts and any OpenAI-compatible endpoint does: one user message (the
   * instructions are in it: no system role), `max_tokens`, temperature 0; no `seed`, `response_format`,
   * `n`, `user` or `stream`. Determinism comes from temperature 0 and the judge cache.
   */
  async complete(prompt: string, signal?: AbortSignal): Promise<JudgeReply> {
    const model = await this.model(signal);
    const body = { model, messages: [{ role: 'user', content: prompt }], max_tokens: JUDGE_MAX_TOKENS, temperature: 0 };
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

  /**
   * Whether the judge can grade, asked once before a run: `GET /models` answers and serves the model
   * (an external endpoint without that route gets a tiny completion instead). Throws a one-line
   * JudgeError or UsageError saying what failed, where, and what to do.
   */
  async check(signal?: AbortSignal): Promise<string> {
    const model = await this.checkedModel(signal);
    // The model the check found is the one the grades use: the list is not asked for again.
    this.modelChoice = Promise.resolve(model);
    return model;
  }

  private async checkedModel(signal?: AbortSignal): Promise<string> {
    const configured = this.endpoint.model;
    let ids: string[];
    try {
      ids = await this.models(signal);
    } catch (error) {
      const status = error instanceof JudgeError && error.cause instanceof HttpStatusError ? error.cause.status : undefined;
      if (this.endpoint.kind !== 'external' || configured === undefined || (status !== 404 && status !== 405)) throw error;
      await this.complete('Reply with the word OK.', signal);
      return configured;
    }
    if (configured === undefined) return this.pickFirst(ids);
    if (ids.length > 0 && !ids.includes(configured)) {
      const listed = ids.length > 5 ? `${ids.slice(0, 5).join(', ')}, ...` : ids.join(', ');
      throw new UsageError(`judge at ${this.endpoint.base}: model "${configured}" is not served (GET /models lists ${listed}); set judge.model or DSBENCH_JUDGE_MODEL to one it serves, or DSBENCH_JUDGE_ENDPOINT for another judge`);
    }
    return configured;
  }

  private async firstModel(signal?: AbortSignal): Promise<string> {
    return this.pickFirst(await this.models(signal));
  }

  private pickFirst(ids: readonly string[]): string {
    const first = ids[0];
    if (!first) throw new UsageError(`the judge at ${this.endpoint.base} lists no models; set judge.model in the suite or DSBENCH_JUDGE_MODEL`);
    return first;
  }

  private async models(signal?: AbortSignal): Promise<string[]> {
    const { json } = await this.call(() => this.transport.requestJson({ operation: 'judge.models', method: 'GET', path: '/models', ...(signal && { signal }) }));
    return ModelsSchema.safeParse(json).data?.data.map((m) => m.id) ?? [];
  }

  /** Errors name the judge, so a grade's error says which endpoint failed, in the server's own words. */
  private async call<T>(f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (error) {
      if (error instanceof HttpStatusError) throw new JudgeError(judgeFailure(this.endpoint, error), error);
      if (error instanceof DsbenchError) throw new JudgeError(`judge at ${this.endpoint.base}: ${error.message}`, error);
      throw error;
    }
  }
}

/** `judge at <base>: POST /chat/completions failed with HTTP 400: seed is not supported`, and what to do. */
export function judgeFailure(endpoint: Pick<JudgeEndpoint, 'kind' | 'base'>, error: HttpStatusError): string {
  const words = serverWords(error);
  const attempts = error.attempts > 1 ? ` (after ${error.attempts} attempts)` : '';
  const hint = judgeHint(endpoint, error.status);
  return `judge at ${endpoint.base}: ${error.context.method} ${error.context.endpoint} failed with HTTP ${error.status}${words ? `: ${words}` : ''}${attempts}${hint ? `; ${hint}` : ''}`;
}

/** The body as the server wrote it: JSON `{type, message}` (the platform's LLM API from 5.7) or plain text. */
function serverWords(error: HttpStatusError): string {
  try {
    const body = JSON.parse(error.bodyExcerpt) as { type?: unknown; message?: unknown };
    if (typeof body.type === 'string' && typeof body.message === 'string') return redact(`${body.type}: ${body.message}`).replace(/[.\s]+$/, '');
  } catch {
    // plain text, or cut short: the transport's reading of it stands
  }
  return error.serverMessage.replace(/[.\s]+$/, '');
}

/** What to do, one clause; the way out of a judge that is not available is another judge, or grading later. */
export function judgeHint(endpoint: Pick<JudgeEndpoint, 'kind'>, status: number): string {
  const elsewhere = 'set DSBENCH_JUDGE_ENDPOINT (with DSBENCH_JUDGE_TOKEN and DSBENCH_JUDGE_MODEL) to grade with another judge, or set judge.during: never and run dsbench grade RUN later';
  if (endpoint.kind === 'instance' && (status === 401 || status === 403 || status === 404)) {
    return `the instance's LLM API is not available to this token (releases from 6.8 gate it, Enterprise Starter disables it): ${elsewhere}`;
  }
  if (status === 401 || status === 403) return 'check DSBENCH_JUDGE_TOKEN';
  if (status === 404) return 'check DSBENCH_JUDGE_ENDPOINT: dsbench calls <endpoint>/models and <endpoint>/chat/completions';
  if (status === 429 || status >= 500) return 'the judge failed; grade again later with dsbench grade RUN';
  return '';
}

