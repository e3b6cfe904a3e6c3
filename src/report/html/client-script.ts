// The viewer (browser/, TypeScript checked against the DOM by its own tsconfig.json) as the text of one
// <script>: esbuild bundles browser/main.ts and its imports into an IIFE. Run from the sources (tests, tsx),
// it is bundled here at its first use; `npm run build` bundles it once and ships the text in place of this
// module (scripts/build.ts, inlineClientScript), so the built CLI reads no source file and needs no esbuild.
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

let script: string | undefined;

/** The viewer's script, bundled at the first call. */
export function clientScript(): string {
  return (script ??= bundleClientScript());
}

export function bundleClientScript(): string {
  const result = buildSync({
    entryPoints: [fileURLToPath(new URL('./browser/main.ts', import.meta.url))],
    bundle: true,
    format: 'iife',
    // What the viewer was written for when it was a hand-written script: reports open in older browsers too.
    target: 'es2019',
    charset: 'utf8',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles.map((f) => f.text).join('');
}
