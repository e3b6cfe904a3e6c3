import { createHash } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { DsbenchError, UsageError } from '../errors/errors.js';
import { latestVersion, schemaVersion } from '../store/migrations.js';
import { type Store, openStore } from '../store/store.js';
import { VIEW_CSS, VIEW_JS, VIEW_JS_PATH } from './assets.js';
import { TOKEN_COOKIE, isLoopback, loopbackHostHeader, requestToken, sameToken } from './auth.js';
import { html, page } from './html.js';
import { LiveUpdates } from './live.js';
import { PageNotFound, ViewPages } from './routes.js';

// `dsbench view`: a read-only web app over the results database, on node's own HTTP server. Every page is
// HTML made on the server from the store's readers (server text escaped), followed live by a small script.

export interface ViewOptions {
  db: string;
  host: string;
  port: number;
  /** Required off loopback. */
  token?: string | undefined;
}

export interface ViewServer {
  url: string;
  close(): Promise<void>;
}

// The style sheet is inlined in each page (a request less before the first paint), allowed by its hash.
const CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(VIEW_CSS).digest('base64')}'; script-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;

const HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'cache-control': 'no-store' } as const;

/** The viewer's page cache: its pages read a few index pages each; SQLite's 16 MB would be most of its memory at rest. */
const VIEW_PAGE_CACHE_KIB = 4096;

/** Opens the database for reading only: a missing file, another program's, a newer or an older schema are named. */
export function openForViewing(file: string): Store {
  if (!existsSync(file)) throw new UsageError(`no results database at ${file}: run a suite first (npx dsbench run), or pass --db with the database's path.`);
  if (statSync(file).isDirectory()) throw new UsageError(`${file} is a folder, not a results database; pass --db with the database file.`);
  const probe = new Database(file, { readonly: true, fileMustExist: true });
  let version: number;
  try {
    version = schemaVersion(probe);
  } finally {
    probe.close();
  }
  if (version < latestVersion() && version > 0) {
    throw new UsageError(`results database ${file} was written by an older dsbench (schema ${version}, this one reads ${latestVersion()}); view never writes, so upgrade it once with: npx dsbench runs --db ${file}`);
  }
  return openStore(file, { readOnly: true, pageCacheKiB: VIEW_PAGE_CACHE_KIB });
}

export async function startViewer(options: ViewOptions): Promise<ViewServer> {
  if (!isLoopback(options.host) && !options.token) {
    throw new UsageError(`--host ${options.host} is not loopback: the viewer would be reachable by others, so it needs a token (--token or DSBENCH_VIEW_TOKEN)`);
  }
  const created = [`${options.db}-wal`, `${options.db}-shm`].filter((f) => !existsSync(f));
  const store = openForViewing(options.db);
  const pages = new ViewPages(store, options.db);
  const live = new LiveUpdates(store.db, () => pages.clear());
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => fail(res, error));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://viewer.invalid');
    if (!allowed(req, res, url)) return;
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'The viewer is read-only: GET only.\n', { allow: 'GET, HEAD' });
    const path = url.pathname;
    if (path === '/assets/view.js') return send(res, 200, 'text/javascript', VIEW_JS, url.search === VIEW_JS_PATH.slice(VIEW_JS_PATH.indexOf('?')) ? { 'cache-control': 'max-age=31536000, immutable' } : {});
    if (path === '/favicon.ico') return send(res, 204, 'image/x-icon', '');
    if (path === '/events') return live.subscribe(res, numberOrUndefined(url.searchParams.get('run')));
    if (path === '/compare/page' || path === '/history/page') {
      const text = await pages.generated(path, url);
      return send(res, 200, 'text/html', text, { 'content-security-policy': inlinePolicy(text) });
    }
    const version = live.current();
    const made = await pages.route(path, url);
    const fragment = req.headers['x-dsbench-fragment'] === '1';
    send(res, 200, 'text/html', fragment ? made.body.text : page({ ...made, version }));
  }

  function allowed(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
    if (!options.token) {
      if (loopbackHostHeader(req)) return true;
      send(res, 403, 'text/plain', 'The viewer answers only requests addressed to loopback (127.0.0.1 or localhost).\n');
      return false;
    }
    const { token, fromQuery } = requestToken(req, url);
    if (token === undefined || !sameToken(token, options.token)) {
      send(res, 401, 'text/plain', 'Unauthorized.\n', { 'www-authenticate': 'Bearer' });
      return false;
    }
    if (!fromQuery) return true;
    // The token leaves the address (and the history) for a cookie only this viewer reads.
    url.searchParams.delete('token');
    res.writeHead(303, { ...HEADERS, location: url.pathname + url.search, 'set-cookie': `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/` });
    res.end();
    return false;
  }

  function fail(res: ServerResponse, error: unknown): void {
    if (res.headersSent) return void res.end();
    const known = error instanceof PageNotFound ? 404 : error instanceof DsbenchError ? 400 : 500;
    const message = error instanceof Error ? error.message : String(error);
    const text = known === 500 ? `internal error in dsbench: ${message}` : message;
    const title = known === 404 ? 'Not found' : known === 400 ? 'Cannot show that' : 'Internal error';
    send(res, known, 'text/html', page({ title, crumbs: [['runs', '/'], [title]], body: html`<h1>${title}</h1><p>${text}</p><p><a href="/">Back to the runs</a></p>` }));
  }

  await listen(server, options);
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: async () => {
      live.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pages.close();
      store.close();
      removeOwnWal(options.db, created);
    },
  };
}

/**
 * A read-only connection makes the WAL's index (-shm) and an empty WAL that it cannot remove. When it made
 * them and the WAL is still empty, a moment's read-write connection, closing as the last one, removes both;
 * with nothing in the WAL there is nothing to copy into the database, so the file is not touched. While
 * another process holds the database (a run), its connection keeps them, as it should.
 */
function removeOwnWal(db: string, created: readonly string[]): void {
  const wal = `${db}-wal`;
  if (created.length < 2 || !existsSync(wal) || statSync(wal).size > 0) return;
  try {
    const connection = new Database(db, { fileMustExist: true });
    // SQLite opens the WAL at the first read; closing then, as the last connection, removes it.
    connection.prepare('SELECT count(*) FROM sqlite_schema').get();
    connection.close();
  } catch {
    // Another program holds it: the files are its.
  }
}

/** A whole answer with its length: the browser knows where it ends without a chunked transfer's last chunk. */
function send(res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...HEADERS, 'content-security-policy': CSP, 'content-type': `${type}; charset=utf-8`, 'content-length': String(Buffer.byteLength(body)), ...extra });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

/** The policy of a page with inline script and style: exactly those, by their hashes. */
function inlinePolicy(text: string): string {
  const hashes = (tag: string) =>
    [...text.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`).join(' ');
  return `default-src 'none'; script-src ${hashes('script')}; style-src ${hashes('style')}; img-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'`;
}

function numberOrUndefined(text: string | null): number | undefined {
  return text !== null && /^\d+$/.test(text) ? Number(text) : undefined;
}

function listen(server: Server, options: ViewOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') reject(new UsageError(`port ${options.port} on ${options.host} is in use by another program; pick another with --port (0 picks a free one)`));
      else if (error.code === 'EADDRNOTAVAIL') reject(new UsageError(`--host ${options.host} is not an address of this machine`));
      else reject(error);
    });
    server.listen(options.port, options.host, () => resolve());
  });
}

