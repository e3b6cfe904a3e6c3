// Measurement children run plain JavaScript, as the built CLI does: under tsx they would carry its loader
// (about 40 MB of RSS) and its module wrappers in every number. This transpiles an entry file and every file
// it imports relatively (TypeScript's transpileModule: no type check, a few ms a file).
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

// Static imports (bare ones too), re-exports, and dynamic `import('./x.js')` (the CLI loads each command that way).
const IMPORT = /(?:(?:import|export)\s[^'"]*?from\s+|\bimport\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

/**
 * Transpiles the entries (paths below the project root) and their relative imports into
 * node_modules/.cache/<name> (inside node_modules so the output resolves the project's dependencies);
 * returns the entries' output paths. Each benchmark has its own `name`, so one starting does not wipe
 * the files from under another.
 */
/** Where `transpile(name, …)` writes. */
export function transpiledDir(name: string): string {
  return join(ROOT, 'node_modules', '.cache', name);
}

export function transpile(name: string, entries: string[]): string[] {
  const OUT = transpiledDir(name);
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  // The project's package.json makes the output ESM, and src/version.ts reads it relative to itself.
  copyFileSync(join(ROOT, 'package.json'), join(OUT, 'package.json'));
  const pending = entries.map((entry) => resolve(ROOT, entry));
  const done = new Set<string>();
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (done.has(file)) continue;
    done.add(file);
    const source = readFileSync(file, 'utf8');
    for (const [, spec] of source.matchAll(IMPORT)) pending.push(resolve(dirname(file), spec!.replace(/\.js$/, '.ts')));
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
      fileName: file,
    });
    const out = join(OUT, relative(ROOT, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText);
  }
  return entries.map((entry) => join(OUT, entry).replace(/\.ts$/, '.js'));
}
