// The floor dsbench's CPU per question is measured against: the same two requests per question (create,
// then one get of the conversation, as a run makes against an emulator that answers at once), the same
// connection pool and concurrency, replies read and parsed, nothing recorded or checked.
// Usage (as plain JavaScript): node bare-loop.js URL TOKEN QUESTIONS CONCURRENCY
import { Agent, request } from 'undici';

const [url, token, questions, concurrency] = process.argv.slice(2) as [string, string, string, string];
const total = Number(questions);
const dispatcher = new Agent({ connections: Number(concurrency) + 2 });
const headers = { accept: 'application/json', 'content-type': 'application/json', 'connect-protocol-version': '1', authorization: `token ${token}` };

async function call(method: string, body: unknown): Promise<{ name: string }> {
  const res = await request(`${url}/api/deepsearch.v1.Service/${method}`, { method: 'POST', dispatcher, headers, body: JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${method}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
  return JSON.parse(text) as { name: string };
}

let next = 0;
async function worker(): Promise<void> {
  while (next < total) {
    const i = next++;
    const created = await call('CreateConversation', { parent: 'users/~self', conversation: { questions: [{ input: [{ question: { text: `Bare question ${i % 20}` } }] }] } });
    await call('GetConversation', { name: created.name });
  }
}

await Promise.all(Array.from({ length: Number(concurrency) }, worker));
await dispatcher.close();
