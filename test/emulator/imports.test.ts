// The emulator stands beside the product: it imports only the root leaves of src/, and its own modules
// import one another without a circle (type-only imports count: a circle of types is still a knot).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');
const EMULATOR = path.join(SRC, 'emulator');
const ROOT_LEAVES = ['random.ts', 'answer-links.ts', 'emulator-identity.ts', 'version.ts'].map((f) => path.join(SRC, f));
const RELATIVE_IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Each module's relative imports, as absolute `.ts` paths. */
function importGraph(files: readonly string[]): Map<string, string[]> {
  return new Map(
    files.map((file) => {
      const text = readFileSync(file, 'utf8');
      const targets = [...text.matchAll(RELATIVE_IMPORT)].map((m) => path.resolve(path.dirname(file), (m[1] ?? m[2])!).replace(/\.js$/, '.ts'));
      return [file, [...new Set(targets)]];
    }),
  );
}

/** One import path that leads back to where it started, or undefined when the graph has no circle. */
function findCircle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === 'open') return [...trail.slice(trail.indexOf(file)), file];
    if (state.get(file) === 'done' || !graph.has(file)) return undefined;
    state.set(file, 'open');
    trail.push(file);
    for (const next of graph.get(file)!) {
      const circle = visit(next);
      if (circle) return circle;
    }
    trail.pop();
    state.set(file, 'done');
    return undefined;
  };
  for (const file of graph.keys()) {
    const circle = visit(file);
    if (circle) return circle;
  }
  return undefined;
}

describe('src/emulator imports', () => {
  const graph = importGraph(modules(EMULATOR));

  it('reach outside src/emulator only for the root leaves of src/', () => {
    const outside = [...graph].flatMap(([file, targets]) =>
      targets.filter((t) => !t.startsWith(EMULATOR + path.sep) && !ROOT_LEAVES.includes(t)).map((t) => `${path.relative(SRC, file)} -> ${path.relative(SRC, t)}`),
    );
    expect(outside).toEqual([]);
  });

  it('form no circle', () => {
    expect(findCircle(graph)?.map((f) => path.relative(EMULATOR, f)).join(' -> ')).toBeUndefined();
  });
});
