// Like bench/lib/transpile.ts, into a folder of this benchmark's own: the shared one is wiped by every
// other benchmark that starts, which would pull the files from under a run in progress.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '../..');
const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/g;

/** Transpiles the entries and their relative imports into node_modules/.cache/<name>; returns the entries' output paths. */
export function transpileInto(name: string, entries: string[]): string[] {
  const out = join(ROOT, 'node_modules', '.cache', name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  copyFileSync(join(ROOT, 'package.json'), join(out, 'package.json'));
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
    const target = join(out, relative(ROOT, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
  return entries.map((entry) => join(out, entry).replace(/\.ts$/, '.js'));
}
