// The servers bench/view/paint.ts compares, each in a process of its own: this checkout's viewer, another
// checkout's (`--against DIR`), and a bare node server (bare.ts) with the floor page and copies of a viewer page.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { transpile, transpiledDir } from '../lib/transpile.js';

export const ITEM = `/runs/1/items/${encodeURIComponent('prod/question/q42/0')}`;

/** A child process serving until SIGTERM; its address is its first line. */
async function serve(script: string, args: string[]): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  process.once('exit', () => child.kill('SIGTERM'));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before serving`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

/** This checkout's viewer, or another checkout's (transpiled by that checkout's own code, as it is there). */
async function viewerOf(root: string | undefined, name: string, db: string): Promise<{ url: string; stop(): void }> {
  const lib = root ? ((await import(path.join(root, 'bench/lib/transpile.ts'))) as typeof import('../lib/transpile.js')) : { transpile, transpiledDir };
  const [serveJs] = lib.transpile(name, ['bench/view/serve.ts', 'src/view/report-worker.ts']);
  const served = await serve(serveJs!, [db]);
  return {
    url: served.url,
    stop: () => {
      served.stop();
      rmSync(lib.transpiledDir(name), { recursive: true, force: true });
    },
  };
}

/** A page's address on each viewer: this checkout's, and the other's when given. */
function onViewers(name: string, route: string, viewer: string, against: string | undefined): Record<string, string> {
  return { [name]: `${viewer}${route}`, ...(against ? { [`${name}, against`]: `${against}${route}` } : {}) };
}

export const SETS: Record<string, (viewer: string, bare: string, against: string | undefined) => Record<string, string>> = {
  floor: (_viewer, bare) => ({ floor: `${bare}/floor` }),
  'item only': (viewer, bare, against) => ({ floor: `${bare}/floor`, ...onViewers('item', ITEM, viewer, against) }),
  pages: (viewer, bare, against) => ({
    floor: `${bare}/floor`,
    ...onViewers('item', ITEM, viewer, against),
    ...onViewers('run', '/runs/1', viewer, against),
    ...onViewers('slowest', '/runs/1?sort=latency&order=desc', viewer, against),
    ...onViewers('failed, by latency, page 3', '/runs/1?check=failed&sort=latency&order=desc&page=3', viewer, against),
  }),
  item: (viewer, bare, against) => ({
    floor: `${bare}/floor`,
    'item HTML, bare': `${bare}/copy`,
    'item HTML, bare, viewer headers': `${bare}/copy?headers=1`,
    'item HTML, bare, chunked': `${bare}/copy?chunked=1`,
    'item HTML, bare, no script': `${bare}/copy?script=0`,
    'item HTML, bare, no style': `${bare}/copy?css=0`,
    ...onViewers('item', ITEM, viewer, against),
  }),
};

export interface PairOptions {
  db: string;
  set: string;
  /** Another checkout whose viewer serves the same pages. */
  against?: string | undefined;
  /** A folder of HTML files the bare server serves as they are, and the names (NAME.html) to open. */
  folder?: string | undefined;
  files: string[];
}

/** The servers started, and the pages to open by name. */
export async function startPairs(options: PairOptions): Promise<{ pages: Record<string, string>; stop(): void }> {
  const name = `view-paint-${process.pid}`;
  const [bareJs] = transpile(name, ['bench/view/bare.ts']);
  const viewer = await viewerOf(undefined, `${name}-viewer`, options.db);
  const against = options.against ? await viewerOf(path.resolve(options.against), `${name}-against`, options.db) : undefined;
  const bare = await serve(bareJs!, [viewer.url, ITEM, ...(options.folder ? [path.resolve(options.folder)] : [])]);
  const files = Object.fromEntries(options.files.map((file) => [`file ${file}`, `${bare.url}/file/${file}`]));
  const set = SETS[options.set];
  if (!set) throw new Error(`no set ${options.set}: one of ${Object.keys(SETS).join(', ')}`);
  return {
    pages: { ...set(viewer.url, bare.url, against?.url), ...files },
    stop: () => {
      bare.stop();
      viewer.stop();
      against?.stop();
      rmSync(transpiledDir(name), { recursive: true, force: true });
    },
  };
}
