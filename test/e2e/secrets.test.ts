// No secret anywhere: a token and the values of extra headers (SRC_HEADER_*, SRC_HEADERS) are planted as
// canaries, a server echoes every header it receives into answers, titles, sources, error messages and
// stream events, and nothing dsbench stores (tables, database and WAL bytes), exports or prints may
// contain any of them.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedItems } from '../../src/store/index.js';
import { openStore } from '../../src/store/store.js';
import { prepareCli, type Cli, type Run } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../runner/fixtures/harness.js';

const TOKEN = 'canaryTok3n-a1b2c3d4e5';
const PROXY = 'canaryPr0xy-f6g7h8i9';
const OTHER = 'canaryOth3r-j0k1l2m3';
const CANARIES = [TOKEN, PROXY, OTHER];
const ENV = {
  SRC_ACCESS_TOKEN: TOKEN,
  SRC_HEADER_X_PROXY_KEY: PROXY,
  SRC_HEADERS: `x-other-key: ${OTHER}`,
};

/** Every header value the server received, as a server echoing a request back would show it. */
function echo(req: IncomingMessage): string {
  return `you sent ${Object.entries(req.headers).map(([k, v]) => `${k}=${String(v)}`).join(', ')}`;
}

function legacyConversation(req: IncomingMessage, id: number, failed: boolean) {
  const said = echo(req);
  return {
    id,
    questions: [
      {
        id: id * 10,
        question: 'Where is it?',
        status: 'completed',
        title: said,
        answer: failed ? undefined : `Answer: ${said}`,
        sources: [{ type: 'Repository', link: `/x?token=${TOKEN}`, label: said }],
        suggested_followups: [said],
        stats: { time_millis: 10, credits: 1 },
        ...(failed && { error: { kind: 'InternalError', title: said, message: said, details: said } }),
      },
    ],
    read_token: 'caebeb05-7755-4f89-834f-e3ee4a6acb25',
    share_url: 'https://x.test/deepsearch/caebeb05-7755-4f89-834f-e3ee4a6acb25',
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

let cli: Cli;
let server: TestServer;
const runs: Run[] = [];
const dsbench = async (args: string[]) => {
  const run = await cli.run(args, ENV);
  runs.push(run);
  return run;
};

beforeAll(async () => {
  cli = prepareCli();
  server = await startServer((req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/.api/search/stream') {
      const said = JSON.stringify(echo(req));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        `event: progress\ndata: {"done":true,"matchCount":0,"skipped":[{"reason":"shard-timeout","title":${said},"message":${said},"severity":"warn"}]}\n\n` +
          `event: alert\ndata: {"title":${said},"description":${said},"proposedQueries":[{"query":${said}}]}\n\n` +
          `event: error\ndata: {"message":${said}}\n\ndata: {}\nevent: done\ndata: {}\n\n`,
      );
      return;
    }
    if (url.pathname.startsWith('/api/deepsearch.v1.Service/')) {
      send(res, 200, { name: 'users/-/conversations/7', title: echo(req), state: { error: { code: 'ERROR_INTERNAL', message: echo(req) } } });
      return;
    }
    const failed = body.includes('fails');
    if (req.method === 'POST' && url.pathname === '/.api/deepsearch/v1') return send(res, 200, legacyConversation(req, failed ? 2 : 1, failed));
    const id = /\/(\d+)$/.exec(url.pathname)?.[1];
    if (req.method === 'GET' && id) return send(res, 200, legacyConversation(req, Number(id), id === '2'));
    // Anything else: an error whose message echoes the credentials.
    send(res, 400, { message: echo(req) });
  });
});

afterAll(async () => {
  await server.close();
});

function scan(what: string, text: string): void {
  for (const canary of CANARIES) expect(text.includes(canary), `${canary} in ${what}`).toBe(false);
}

describe('secrets', () => {
  it('no token or extra header value reaches the database, the WAL, any export, stdout or stderr', async () => {
    const dir = tempDir('dsbench-secrets-');
    const db = path.join(dir, 'runs.db');
    const suite = path.join(dir, 'suite.yaml');
    writeFileSync(
      suite,
      `name: secrets
defaults: { api: legacy, poll: { strategy: fixed, interval: 100ms, min: 100ms } }
questions:
  - id: echoed
    question: Where is it?
    expect: { contains: nothing-like-this }
  - id: failing
    question: This one fails
searches:
  - id: echoed-search
    query: anything
    expect: { exhaustive: true }
`,
    );
    // A connection held open through the run keeps the -wal file (the last one to close would remove it), so
    // the write-ahead log itself can be scanned, not only what was checkpointed into the database.
    openStore(db).close();
    const holder = new Database(db);
    holder.prepare('SELECT count(*) FROM runs').get();
    const run = await dsbench(['run', suite, '--endpoint', server.url, '--db', db, '--quiet', '--json', '--max-attempts', '1']);
    expect(run.stdout, run.stderr).toContain('"runId"');
    // The server saw the canaries, so a leak would have been possible.
    expect(server.received.some((r) => r.headers.x_proxy_key === PROXY && r.headers['x-other-key'] === OTHER)).toBe(true);

    const out = path.join(dir, 'report');
    const report = await dsbench(['report', '--db', db, '--out', out, '--format', 'csv,md,json']);
    expect(report.code, report.stderr).toBe(0);
    const ask = await dsbench(['ask', 'Where is it?', '--endpoint', server.url, '--api', 'legacy', '--json', '--poll-interval', '0.01']);
    expect(ask.stdout).toContain('[REDACTED]');
    const askVersioned = await dsbench(['ask', 'Where is it?', '--endpoint', server.url, '--api', 'versioned', '--json', '--poll-interval', '0.01']);
    expect(askVersioned.stdout).toContain('[REDACTED]');
    const search = await dsbench(['search', 'anything', '--endpoint', server.url, '--json']);
    expect(search.stdout).toContain('[REDACTED]');
    const failing = await dsbench(['conversations', 'delete', '140', '--api', 'legacy', '--endpoint', server.url, '--max-attempts', '1']);
    expect(failing.stderr).toContain('[REDACTED]');

    for (const r of runs) {
      scan('stdout', r.stdout);
      scan('stderr', r.stderr);
    }
    const exports = readdirSync(out);
    expect(exports).toEqual(expect.arrayContaining(['report.md', 'report.json']));
    for (const file of exports) scan(file, readFileSync(path.join(out, file), 'utf8'));

    const handle = new Database(db, { readonly: true });
    try {
      // Every row of every table, whatever reads it or not: SQL over the whole file, on purpose.
      const tables = handle.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>;
      for (const { name } of tables) scan(`table ${name}`, JSON.stringify(handle.prepare(`SELECT * FROM "${name}"`).all()));
      // The echoed text did reach the tables (redacted), so the scan looked at the right place.
      const turns = storedItems(handle, (JSON.parse(run.stdout) as { runId: number }).runId).flatMap((i) => i.turns);
      expect(JSON.stringify(turns.map(({ answer, errorMessage }) => ({ answer, errorMessage })))).toContain('[REDACTED]');
    } finally {
      handle.close();
    }
    expect(statSync(`${db}-wal`).size).toBeGreaterThan(0);
    // The log did hold the run's rows, echoed text included (redacted).
    expect(readFileSync(`${db}-wal`).toString('latin1')).toContain('[REDACTED]');
    for (const file of [db, `${db}-wal`]) scan(path.basename(file), readFileSync(file).toString('latin1'));
    holder.close();
  });
});
