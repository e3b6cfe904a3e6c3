import { z } from 'zod';
import type { Corpus } from './corpus/corpus.js';
import { parseRequest, readJsonBody, RequestError, sendJson, sendText } from './http-io.js';
import { judgeReply } from './judge.js';
import type { Route, RouteHandler } from './routes.js';

/** The platform caps completions at this many tokens. */
export const MAX_COMPLETION_TOKENS = 4000;
/** What the platform's handler grants a request without `max_tokens`: a verdict cut short. */
export const DEFAULT_MAX_TOKENS = 16;
/** Characters per token of the emulated model's replies. */
const CHARS_PER_TOKEN = 4;

/** provider::api-version::model */
const MODEL_ID = /^[^:\s]+::[^:\s]+::[^:\s]+$/;

const ContentSchema = z.union([z.string(), z.array(z.object({ type: z.literal('text'), text: z.string() }))]);

const ChatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.object({ role: z.string(), content: ContentSchema })).min(1),
  max_tokens: z.number().int().positive().optional(),
  temperature: z.number().optional(),
  stream: z.boolean().optional(),
  n: z.number().int().optional(),
});

/**
 * Fields the platform's handler refuses outright (HTTP 400, plain text), in the order it checks them.
 * `n` and `stream` are refused only for values other than the default.
 */
const REFUSED: ReadonlyArray<{ field: string; refused: (v: unknown) => boolean; message: string }> = [
  { field: 'seed', refused: (v) => v !== undefined, message: 'seed is not supported' },
  { field: 'response_format', refused: (v) => v !== undefined, message: 'response_format is not supported' },
  { field: 'stream', refused: (v) => v === true, message: 'streaming is not supported' },
  { field: 'stream_options', refused: (v) => v !== undefined, message: 'stream_options is not supported' },
  { field: 'n', refused: (v) => v !== undefined && v !== 1, message: 'n other than 1 is not supported' },
  { field: 'user', refused: (v) => v !== undefined, message: 'user is not supported' },
  { field: 'service_tier', refused: (v) => v !== undefined, message: 'service_tier is not supported' },
];

export interface LlmApiState {
  /** Answer 404 to everything under `/.api/llm`, as releases from 6.8 do without the license feature. */
  gated: boolean;
}

/**
 * The instance's OpenAI-compatible LLM API, validating like the platform's handler: `X-Requested-With`
 * required; `seed`, `response_format`, `stream: true`, `stream_options`, `n` other than 1, `user`,
 * `service_tier` and a `system` message refused with 400 in plain text; a model id not of the form
 * provider::version::model refused, a well-formed unknown one a 500; `temperature` from 0 to 1; an omitted
 * `max_tokens` is 16, at most 4,000; strict user/assistant alternation ending with the user. With
 * `state.gated` every route answers 404. Completions come from a deterministic judge (see judge.ts).
 */
export function llmRoutes(corpus: Corpus, models: readonly string[], now: () => number, state: LlmApiState): Route[] {
  const gate = (handler: RouteHandler): RouteHandler => (req, res, ctx) => {
    if (state.gated) return sendText(res, 404, 'Not found: the LLM API is not available on this instance');
    const requestedWith = req.headers['x-requested-with'];
    if (typeof requestedWith !== 'string' || requestedWith.trim() === '') return sendText(res, 400, 'X-Requested-With header is required');
    return handler(req, res, ctx);
  };

  const list: RouteHandler = (_req, res, ctx) =>
    sendJson(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: id.split('::')[0] ?? '' })) }, ctx);

  const chat: RouteHandler = async (req, res, ctx) => {
    try {
      const body = parseRequest(ChatRequestSchema, await readJsonBody(req));
      for (const rule of REFUSED) if (rule.refused(body[rule.field])) throw new RequestError(400, rule.message);
      if (!MODEL_ID.test(body.model)) throw new RequestError(400, `model "${body.model}" is not of the form provider::api-version::model`);
      if (body.temperature !== undefined && (body.temperature < 0 || body.temperature > 1)) throw new RequestError(400, 'temperature must be between 0 and 1');
      if (body.max_tokens !== undefined && body.max_tokens > MAX_COMPLETION_TOKENS) {
        throw new RequestError(400, `max_tokens must be at most ${MAX_COMPLETION_TOKENS}, got ${body.max_tokens}`);
      }
      body.messages.forEach((m, i) => {
        if (m.role === 'system') throw new RequestError(400, 'system role is not supported');
        const expected = i % 2 === 0 ? 'user' : 'assistant';
        if (m.role !== expected) throw new RequestError(400, `messages must alternate user and assistant, starting with user: message ${i} has role "${m.role}"`);
      });
      if (body.messages.length % 2 === 0) throw new RequestError(400, 'the last message must have the role user');
      if (!models.includes(body.model)) throw new RequestError(500, `failed to get a client for model "${body.model}"`);
      const prompt = text(body.messages[body.messages.length - 1]!.content);
      const full = await judgeReply(prompt, corpus);
      const maxChars = (body.max_tokens ?? DEFAULT_MAX_TOKENS) * CHARS_PER_TOKEN;
      const reply = full.slice(0, maxChars);
      const promptTokens = Math.ceil(body.messages.reduce((n, m) => n + text(m.content).length, 0) / CHARS_PER_TOKEN);
      const completionTokens = Math.ceil(reply.length / CHARS_PER_TOKEN);
      sendJson(
        res,
        200,
        {
          id: `chatcmpl-${Math.floor(now())}`,
          object: 'chat.completion',
          created: Math.floor(now() / 1000),
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: reply.length < full.length ? 'length' : 'stop' }],
          usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
        },
        ctx,
      );
    } catch (error) {
      if (error instanceof RequestError) return sendText(res, error.status, error.message);
      throw error;
    }
  };

  return [
    { method: 'GET', path: '/.api/llm/models', operation: 'llm.models', handler: gate(list) },
    { method: 'POST', path: '/.api/llm/chat/completions', operation: 'llm.chat', handler: gate(chat) },
  ];
}

function text(content: z.output<typeof ContentSchema>): string {
  return typeof content === 'string' ? content : content.map((c) => c.text).join('');
}
