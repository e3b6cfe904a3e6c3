import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { RouteContext } from './routes.js';

/** Large enough for a 100,000-character question fully escaped. */
const MAX_BODY_BYTES = 2 * 1024 * 1024;

export class BodyTooLargeError extends Error {
  constructor() {
    super(`request body exceeds ${MAX_BODY_BYTES} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLargeError();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Plain text the way Go's http.Error writes it: trailing newline, nosniff. */
export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  res.end(text.endsWith('\n') ? text : `${text}\n`);
}

/** Sends JSON, first applying the request's after-action fault if it has one. */
export function sendJson(res: ServerResponse, status: number, body: unknown, ctx?: RouteContext): void {
  const fault = ctx?.afterAction;
  if (fault?.kind === 'resetAfterAction') {
    res.socket?.destroy();
    return;
  }
  const payload = fault?.kind === 'dropField' && status < 300 ? dropField(body, fault.field) : body;
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(payload));
}

/** Removes a dotted path such as `id` or `questions.0.id` from a copy of the body. */
function dropField(body: unknown, path: string): unknown {
  const copy: unknown = structuredClone(body);
  const keys = path.split('.');
  const last = keys.pop();
  let node: unknown = copy;
  for (const key of keys) node = isRecord(node) ? node[key] : undefined;
  if (last !== undefined && isRecord(node)) delete node[last];
  return copy;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Rejects a request with an HTTP status; each API renders it in its own format. */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'RequestError';
  }
}

/** An empty body counts as `{}`, as Connect allows. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  let text: string;
  try {
    text = await readBody(req);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new RequestError(413, error.message);
    throw error;
  }
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new RequestError(400, 'request body is not valid JSON');
  }
}

export function parseRequest<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  throw new RequestError(400, `invalid request: ${where}${issue?.message ?? 'malformed'}`);
}
