// A command loads only the code it uses: start-up time is mostly module loading (bench/startup measures
// the time; this checks which code each command line loads, in the built CLI: esbuild's bundle, whose
// build says which source files went into each of its files).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lazyHttp2, lazyStringWidth } from '../../scripts/build.js';
import { ROOT, prepareCli, type Cli } from '../helpers/cli.js';
import { closedPort } from '../helpers/server.js';

let cli: Cli;
let dir: string;
let endpoint: string;

beforeAll(async () => {
  cli = prepareCli();
  dir = mkdtempSync(path.join(tmpdir(), 'dsbench-startup-'));
  // A module loader hook that appends every URL loaded to the file named by DSBENCH_TEST_LOADED.
  writeFileSync(
    path.join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, nextLoad) {
  appendFileSync(process.env.DSBENCH_TEST_LOADED, url + '\\n');
  return nextLoad(url, context);
}
`,
  );
  // And each directory read (readdirSync), and as the process exits the Node built-in modules it loaded
  // (CommonJS code requires them without the hook).
  writeFileSync(
    path.join(dir, 'register.mjs'),
    `import fs, { appendFileSync } from 'node:fs';
import { register, syncBuiltinESMExports } from 'node:module';
register('./hooks.mjs', import.meta.url);
const readdirSync = fs.readdirSync;
fs.readdirSync = (dir, ...rest) => {
  appendFileSync(process.env.DSBENCH_TEST_LOADED, 'readdir:' + dir + '\\n');
  return readdirSync(dir, ...rest);
};
syncBuiltinESMExports();
process.on('exit', () => appendFileSync(process.env.DSBENCH_TEST_LOADED, process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => 'node:' + m.slice(13) + '\\n').join('')));
`,
  );
  endpoint = await closedPort();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

let runs = 0;
/** What a command line loads: each file (URL), Node built-in module (node:name) and directory read (readdir:path). */
async function urlsLoadedBy(args: string[]): Promise<string[]> {
  const file = path.join(dir, `loaded-${++runs}.txt`);
  writeFileSync(file, '');
  await cli.run(args, { NODE_OPTIONS: `--import ${path.join(dir, 'register.mjs')}`, DSBENCH_TEST_LOADED: file });
  return readFileSync(file, 'utf8').split('\n');
}

/** The files a command line loads (builtins aside): each file of the built CLI, and what else it imports (better-sqlite3). */
async function filesLoadedBy(args: string[]): Promise<string[]> {
  const urls = (await urlsLoadedBy(args)).filter((url) => url.startsWith('file:'));
  // The loader hook's own register.mjs is not the CLI's.
  return urls.map((url) => fileURLToPath(url)).filter((loaded) => !loaded.startsWith(dir));
}

/** The source files a command line loads: those bundled into the built files it loads, and the others it loads. */
async function loadedBy(args: string[]): Promise<string[]> {
  return (await filesLoadedBy(args)).flatMap((loaded) => cli.inputs.get(loaded) ?? [loaded]);
}
const from = (loaded: string[], part: string) => loaded.filter((file) => file.includes(part));

describe('start-up', () => {
  it('--help loads no command, no database, HTTP client, schema library or emulator', async () => {
    const loaded = await loadedBy(['--help']);
    expect(from(loaded, '/src/cli/main.')).toHaveLength(1);
    for (const part of ['/src/cli/run.', '/src/cli/ask.', '/src/emulator/', '/better-sqlite3/', '/undici/', '/zod/']) expect(from(loaded, part)).toEqual([]);
  });

  it('runs loads the database and no HTTP client, schema library or emulator', async () => {
    const loaded = await loadedBy(['runs', '--db', path.join(dir, 'none.db')]);
    expect(from(loaded, '/src/cli/runs.')).toHaveLength(1);
    for (const part of ['/src/cli/ask.', '/src/emulator/', '/undici/', '/zod/']) expect(from(loaded, part)).toEqual([]);
  });

  it("ask and search given an endpoint load no emulator, no database and only undici's Agent and request API", async () => {
    for (const args of [['ask', 'q'], ['search', 'q']]) {
      const loaded = await loadedBy([...args, '--endpoint', endpoint, '--max-attempts', '1']);
      expect(from(loaded, `/src/cli/${args[0]}.`)).toHaveLength(1);
      expect(from(loaded, '/undici/lib/dispatcher/agent.js')).toHaveLength(1);
      // undici's index loads every dispatcher, mock, cache, fetch and WebSocket class: 0.03 s more of CPU.
      expect(from(loaded, '/undici/index.js')).toEqual([]);
      for (const part of ['/src/cli/run.', '/src/emulator/', '/better-sqlite3/']) expect(from(loaded, part)).toEqual([]);
    }
  });

  it('a command reads no directory as it starts (yargs looks for a package.json from the working directory up)', async () => {
    for (const args of [['--help'], ['runs', '--db', path.join(dir, 'none.db')], ['ask', 'q', '--endpoint', endpoint, '--max-attempts', '1']]) {
      const loaded = await urlsLoadedBy(args);
      expect(loaded, args[0]).toContain('node:fs');
      expect(loaded.filter((url) => url.startsWith('readdir:')), args[0]).toEqual([]);
    }
  });

  it('ask and search load no node:http2 (nor the tls and crypto it brings) until HTTP/2 is used', async () => {
    for (const args of [['ask', 'q'], ['search', 'q']]) {
      const loaded = await urlsLoadedBy([...args, '--endpoint', endpoint, '--max-attempts', '1']);
      expect(loaded, args[0]).toContain('node:http');
      expect(loaded.filter((url) => ['node:http2', 'node:tls', 'node:crypto'].includes(url)), args[0]).toEqual([]);
    }
  });

  it('each command line loads a few files of the bundle, not one file per module', async () => {
    const all = await loadedBy(['ask', 'q', '--endpoint', endpoint, '--max-attempts', '1']);
    // ask uses yargs, zod and undici's client: unbundled, 180 ES modules plus undici's CommonJS files;
    // bundled, 19 files (chunks are split by which commands share them, so a command has several).
    expect(from(all, '/node_modules/yargs/').length).toBeGreaterThan(10);
    expect(from(all, '/node_modules/zod/').length).toBeGreaterThan(10);
    for (const args of [['--help'], ['runs', '--db', path.join(dir, 'none.db')], ['ask', 'q', '--endpoint', endpoint, '--max-attempts', '1'], ['search', 'q', '--endpoint', endpoint, '--max-attempts', '1']]) {
      const files = await filesLoadedBy(args);
      expect(files.filter((file) => !file.includes('/node_modules/better-sqlite3/')).length, `${args[0]}: ${files.join(', ')}`).toBeLessThanOrEqual(25);
    }
  });
});

describe("the bundle's string-width", () => {
  type Width = (text: string) => number;
  const samples = ['', 'dsbench ask <question>', '  --max-attempts  Attempts per request [number]', '\u001b[31mred\u001b[0m', '日本語', '👍🏽 ok', 'é', 'a\u0301', 'a\u200bb', 'tab\there'];

  it('measures printable ASCII without initialising string-width, and other text as string-width does', async () => {
    // yargs, cliui and wrap-ansi each import their own copy; each import gets the wrapper.
    for (const importer of ['yargs', 'cliui', 'wrap-ansi']) {
      const resolveDir = path.join(ROOT, 'node_modules', importer);
      const outfile = path.join(dir, `width-${importer}.mjs`);
      await esbuild.build({ stdin: { contents: "export { default } from 'string-width';", resolveDir }, bundle: true, format: 'esm', platform: 'node', outfile, plugins: [lazyStringWidth], logLevel: 'error' });
      const Segmenter = Intl.Segmenter;
      let segmenters = 0;
      // string-width makes its Intl.Segmenter as it initialises (ICU's locale data: a tenth of ask's start-up).
      const counted = class extends Segmenter {
        constructor(...args: ConstructorParameters<typeof Segmenter>) {
          super(...args);
          segmenters++;
        }
      };
      Object.defineProperty(Intl, 'Segmenter', { value: counted, configurable: true, writable: true });
      try {
        const wrapped = ((await import(pathToFileURL(outfile).href)) as { default: Width }).default;
        expect(wrapped('dsbench ask <question>')).toBe(22);
        expect(segmenters, importer).toBe(0);
        const real = ((await import(pathToFileURL(createRequire(path.join(resolveDir, 'package.json')).resolve('string-width')).href)) as { default: Width }).default;
        expect(samples.map(wrapped), importer).toEqual(samples.map(real));
        expect(segmenters, importer).toBeGreaterThan(0);
      } finally {
        Object.defineProperty(Intl, 'Segmenter', { value: Segmenter, configurable: true, writable: true });
      }
    }
  });
});

describe("the bundle's node:http2 for undici", () => {
  it('has the constants of node:http2 and forwards any other member to it', async () => {
    const outfile = path.join(dir, 'http2.cjs');
    // Bundled as undici's HTTP/2 client requires it.
    await esbuild.build({ stdin: { contents: "module.exports = require('node:http2');", resolveDir: path.join(ROOT, 'node_modules/undici/lib/dispatcher') }, bundle: true, format: 'cjs', platform: 'node', outfile, plugins: [lazyHttp2], logLevel: 'error' });
    expect(readFileSync(outfile, 'utf8')).toContain('lazy-http2');
    const standIn = createRequire(import.meta.url)(outfile) as typeof import('node:http2');
    const http2 = await import('node:http2');
    expect(standIn.constants).toEqual(http2.constants);
    expect(standIn.connect).toBe(http2.connect);
  });
});
