import { z } from 'zod';
import type { Corpus } from './corpus/corpus.js';
import { parseRequest, readJsonBody, RequestError, sendJson, sendText } from './http-io.js';
import { judgeReply } from './judge.js';
import type { Route, RouteHandler } from './routes.js';

/** The platform caps completions at this many tokens. */
export const MAX_COMPLETION_TOKENS = 4000;

export const DEFAULT_LLM_MODELS = [
  'anthropic::2024-10-22::claude-sonnet-4-latest',
  'anthropic::2024-10-22::claude-3-5-haiku-latest',
  'openai::2024-02-01::gpt-4o',
];

const ContentSchema = z.union([z.string(), z.array(z.object({ type: z.literal('text'), text: z.string() }))]);

const ChatRequestSchema = z.object({
  model: z.string().min(1),
  messages: z.array(z.object({ role: z.string(), content: ContentSchema })).min(1),
  max_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  seed: z.number().int().optional(),
  stream: z.boolean().optional(),
});

/**
 * The instance's OpenAI-compatible LLM API with the restrictions public clients report: no `system`
 * role, strict user/assistant alternation starting and ending with the user, `max_tokens` at most
 * 4,000, no streaming here. Completions come from a deterministic judge (see judge.ts).
 */
export function llmRoutes(corpus: Corpus, models: readonly string[], now: () => number): Route[] {
  const list: RouteHandler = (_req, res, ctx) =>
    sendJson(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: id.split('::')[0] ?? '' })) }, ctx);

  const chat: RouteHandler = async (req, res, ctx) => {
    try {
      const body = parseRequest(ChatRequestSchema, await readJsonBody(req));
      if (!models.includes(body.model)) throw new RequestError(400, `model "${body.model}" is not available; see GET /.api/llm/models`);
      if (body.stream) throw new RequestError(400, 'streaming is not supported; send stream: false');
      if (body.max_tokens !== undefined && body.max_tokens > MAX_COMPLETION_TOKENS) {
        throw new RequestError(400, `max_tokens must be at most ${MAX_COMPLETION_TOKENS}, got ${body.max_tokens}`);
      }
      body.messages.forEach((m, i) => {
        if (m.role === 'system') throw new RequestError(400, 'the system role is not supported; send instructions in the first user message');
        const expected = i % 2 === 0 ? 'user' : 'assistant';
        if (m.role !== expected) throw new RequestError(400, `messages must alternate user and assistant, starting with user: message ${i} has role "${m.role}"`);
      });
      if (body.messages.length % 2 === 0) throw new RequestError(400, 'the last message must have the role user');
      const prompt = text(body.messages[body.messages.length - 1]!.content);
      const reply = await judgeReply(prompt, corpus);
      const promptTokens = Math.ceil(body.messages.reduce((n, m) => n + text(m.content).length, 0) / 4);
      const completionTokens = Math.ceil(reply.length / 4);
      sendJson(
        res,
        200,
        {
          id: `chatcmpl-${Math.floor(now())}`,
          object: 'chat.completion',
          created: Math.floor(now() / 1000),
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }],
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
    { method: 'GET', path: '/.api/llm/models', operation: 'llm.models', handler: list },
    { method: 'POST', path: '/.api/llm/chat/completions', operation: 'llm.chat', handler: chat },
  ];
}

function text(content: z.output<typeof ContentSchema>): string {
  return typeof content === 'string' ? content : content.map((c) => c.text).join('');
}
