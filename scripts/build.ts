// Builds the CLI (`npm run build`): src/cli/main.ts and everything it imports, dependencies included, bundled
// by esbuild into dist/cli/main.js plus shared chunks, split at each command's dynamic import. A command then
// loads a handful of files instead of some 500 ES modules, which is most of its start-up time.
import { rmSync } from 'node:fs';
import { constants as http2Constants } from 'node:http2';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { bundleClientScript } from '../src/report/html/client-script.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * zod's index re-exports its 50 message locales (360 KB, half of zod's code in the bundle) as `z.locales`,
 * which dsbench never uses; only English, zod's default, is kept.
 */
const zodEnglishOnly: esbuild.Plugin = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${path.sep}node_modules${path.sep}zod${path.sep}`) ? { path: path.resolve(args.resolveDir, '../locales/index.js'), namespace: 'zod-locales' } : undefined,
    );
    build.onLoad({ filter: /./, namespace: 'zod-locales' }, (args) => ({ contents: "export { default as en } from './en.js';", resolveDir: path.dirname(args.path) }));
  },
};

/**
 * string-width (yargs, cliui and wrap-ansi each import a copy) creates an Intl.Segmenter and compiles
 * Unicode-property regular expressions (`\p{RGI_Emoji}`) as it is imported: about a third of `ask`'s start-up
 * instructions, spent on every command although yargs measures only ASCII text in dsbench's help. Each
 * `import` of it gets a wrapper instead: printable ASCII is as wide as it is long (what string-width says of
 * it); any other text goes to the copy the import meant, loaded and initialised at its first such call.
 */
export const lazyStringWidth: esbuild.Plugin = {
  name: 'lazy-string-width',
  setup(build) {
    build.onResolve({ filter: /^string-width$/ }, async (args) => {
      // cli-progress require()s the CommonJS string-width 4, which expects a function: left as it is.
      if (args.kind !== 'import-statement' || args.pluginData === lazyStringWidth) return undefined;
      const real = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: lazyStringWidth });
      if (real.errors.length > 0) return { errors: real.errors };
      return { path: real.path, namespace: 'lazy-string-width' };
    });
    build.onLoad({ filter: /./, namespace: 'lazy-string-width' }, (args) => ({
      // esbuild bundles a module reached by require() behind an initialiser run at the first require.
      contents: `let real;
export default function stringWidth(text, options) {
  if (typeof text === 'string' && /^[\x20-\x7e]*$/.test(text)) return text.length;
  real ??= require(${JSON.stringify(args.path)}).default;
  return real(text, options);
}
`,
      resolveDir: path.dirname(args.path),
    }));
  },
};

/**
 * undici's HTTP/2 client requires node:http2 as it loads, and with it tls and crypto: about 4% of `ask`'s
 * start-up instructions. dsbench speaks HTTP/1.1 (undici negotiates HTTP/2 only when `allowH2` is set). That
 * require gets a stand-in: http2's constants (protocol header names and codes), copied at build time, read as
 * the client loads; any other member comes from node:http2, loaded at its first use.
 */
export const lazyHttp2: esbuild.Plugin = {
  name: 'lazy-http2',
  setup(build) {
    build.onResolve({ filter: /^node:http2$/ }, (args) =>
      args.namespace !== 'lazy-http2' && args.resolveDir.includes(`${path.sep}node_modules${path.sep}undici${path.sep}`) ? { path: 'node:http2', namespace: 'lazy-http2' } : undefined,
    );
    build.onLoad({ filter: /./, namespace: 'lazy-http2' }, () => ({
      contents: `const constants = ${JSON.stringify(http2Constants)};
let http2;
module.exports = new Proxy({ constants }, { get: (stub, key) => (key === 'constants' ? constants : (http2 ??= require('node:http2'))[key]) });
`,
      loader: 'js',
    }));
  },
};

/**
 * yargs looks for a package.json from the working directory up (reading each directory on the way) to guess a
 * version, which src/cli/cli.ts replaces with dsbench's own; its only other use is `pkgConf`, which dsbench
 * does not call. Its directory walker gets a stand-in that finds nothing, so a start reads no directory.
 */
export const noPackageLookup: esbuild.Plugin = {
  name: 'no-package-lookup',
  setup(build) {
    build.onResolve({ filter: /^escalade\/sync$/ }, (args) =>
      args.resolveDir.includes(`${path.sep}node_modules${path.sep}yargs${path.sep}`) ? { path: 'escalade/sync', namespace: 'no-package-lookup' } : undefined,
    );
    build.onLoad({ filter: /./, namespace: 'no-package-lookup' }, () => ({ contents: 'export default function findUp() {}\n', loader: 'js' }));
  },
};

/**
 * The HTML pages' viewer is TypeScript for the browser (src/report/html/browser/), which client-script.ts bundles
 * with esbuild when run from the sources. The built CLI gets that module with the bundled text in its place:
 * it reads no source file at run time and does not load esbuild (a development dependency).
 */
export const inlineClientScript: esbuild.Plugin = {
  name: 'inline-client-script',
  setup(build) {
    const file = path.join(ROOT, 'src', 'report', 'html', 'client-script.ts');
    build.onLoad({ filter: /[\\/]client-script\.ts$/ }, (args) =>
      args.path === file ? { contents: `export function clientScript() {\n  return ${JSON.stringify(bundleClientScript())};\n}\n`, loader: 'js' } : undefined,
    );
  },
};

/** Output file (absolute path) → the source files bundled into it (absolute paths). */
export type BuiltInputs = Map<string, string[]>;

/**
 * Bundles the CLI into `outdir` (emptied first): `<outdir>/cli/main.js`, the chunks in `<outdir>/chunks/`,
 * with source maps. better-sqlite3 stays a package (a native addon found next to its own files); code that
 * reads package files at run time looks them up from the package root, not from its own file's place.
 */
export async function buildCli(outdir: string): Promise<BuiltInputs> {
  rmSync(outdir, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    // The viewer's report worker is a file of its own, beside the chunk that starts it (src/view/report-counter.ts).
    entryPoints: ['src/cli/main.ts', { in: 'src/view/report-worker.ts', out: 'chunks/report-worker' }],
    outdir,
    outbase: 'src',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    external: ['better-sqlite3'],
    // The bundled CommonJS packages (undici) call require() for Node's own modules; ES modules have none.
    banner: { js: "import { createRequire as __dsbenchCreateRequire } from 'node:module';\nconst require = __dsbenchCreateRequire(import.meta.url);" },
    plugins: [zodEnglishOnly, lazyStringWidth, lazyHttp2, noPackageLookup, inlineClientScript],
    metafile: true,
    logLevel: 'warning',
  });
  const inputs: BuiltInputs = new Map();
  for (const [file, output] of Object.entries(result.metafile.outputs)) {
    if (file.endsWith('.js')) inputs.set(path.resolve(ROOT, file), Object.keys(output.inputs).map((input) => path.resolve(ROOT, input)));
  }
  return inputs;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = await buildCli(path.join(ROOT, 'dist'));
  console.log(`built dist/cli/main.js and ${files.size - 1} chunks`);
}
