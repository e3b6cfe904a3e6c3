// The layering rule of docs/development.md, checked on every import of src/: no import runs from a lower
// layer to a higher one, no import circle, no file over 400 lines (the stream scanner excepted), no function
// over 100 lines (but those listed, which may only shrink).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/**
 * Each part of src/ and the layer it sits in: a part imports parts of its own layer or of lower ones. The
 * emulator stands beside the product: it imports only the root leaves, and only the CLI imports it.
 */
const LAYER: Record<string, number> = {
  errors: 0,
  'random.ts': 0,
  'version.ts': 0,
  'redact.ts': 0,
  'terminal-text.ts': 0,
  'answer-links.ts': 0,
  'emulator-identity.ts': 0,
  model: 1,
  stats: 1,
  config: 2,
  http: 3,
  deepsearch: 4,
  stream: 4,
  runner: 5,
  store: 6,
  report: 7,
  grade: 7,
  generate: 7,
  view: 8,
  notify: 8,
  cli: 9,
};
const EMULATOR_MAY_IMPORT = new Set(['random.ts', 'version.ts', 'answer-links.ts', 'emulator-identity.ts']);

/** Files over this many lines are to be split by job; the stream scanner is one hot loop (docs/development.md). */
const MAX_LINES = 400;
const LONG_ALLOWED = new Set(['stream/scan-matches.ts', 'stream/shapes.ts']);

/** Functions over this many lines are to be split into functions with one job each. */
const MAX_FUNCTION_LINES = 100;

type Graph = Map<string, string[]>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => path.relative(SRC, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

/** Every relative import and re-export of each file, as paths relative to src/ (type-only ones too). */
function importGraph(files: readonly string[]): Graph {
  const graph: Graph = new Map();
  for (const file of files) {
    const text = readFileSync(path.join(SRC, file), 'utf8');
    const targets = ts
      .preProcessFile(text, true, true)
      .importedFiles.map((f) => f.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => path.posix.normalize(path.posix.join(path.posix.dirname(file), name)).replace(/\.js$/, '.ts'));
    graph.set(file, targets);
  }
  return graph;
}

/** The part of src/ a file belongs to: its top folder, or its own name at the root. */
function partOf(file: string): string {
  return file.split('/')[0] ?? file;
}

/** Imports that break the rule, as `from -> to (why)`. */
function wrongWayImports(graph: Graph): string[] {
  const wrong: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const a = partOf(from);
      const b = partOf(to);
      if (a === b) continue;
      if (a === 'emulator') {
        if (!EMULATOR_MAY_IMPORT.has(b)) wrong.push(`${from} -> ${to} (the emulator imports only root leaves)`);
        continue;
      }
      if (b === 'emulator') {
        if (a !== 'cli') wrong.push(`${from} -> ${to} (only the CLI starts the emulator)`);
        continue;
      }
      const la = LAYER[a];
      const lb = LAYER[b];
      if (la === undefined || lb === undefined) wrong.push(`${from} -> ${to} (${la === undefined ? a : b} has no layer: add it to the rule)`);
      else if (lb > la) wrong.push(`${from} -> ${to} (${a} is below ${b})`);
    }
  }
  return wrong;
}

/** Each import circle (a strongly connected set of files, Tarjan's algorithm), its files sorted. */
function importCircles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const circle: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      circle.push(w);
    } while (w !== v);
    if (circle.length > 1 || (graph.get(v) ?? []).includes(v)) circles.push(circle.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return circles;
}

const files = sourceFiles(SRC);
const graph = importGraph(files);

describe('the layering rule', () => {
  it('finds a wrong-way import, a circle and an emulator import in a graph made to have them', () => {
    const bad: Graph = new Map([
      ['http/transport.ts', ['runner/run.ts']],
      ['runner/run.ts', ['http/transport.ts']],
      ['runner/plan.ts', ['emulator/agent.ts']],
      ['emulator/agent.ts', ['store/store.ts']],
      ['store/store.ts', ['model/run.ts']],
    ]);
    expect(wrongWayImports(bad)).toEqual([
      'http/transport.ts -> runner/run.ts (http is below runner)',
      'runner/plan.ts -> emulator/agent.ts (only the CLI starts the emulator)',
      'emulator/agent.ts -> store/store.ts (the emulator imports only root leaves)',
    ]);
    expect(importCircles(bad)).toEqual([['http/transport.ts', 'runner/run.ts']]);
  });

  it('reads the imports of src/', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(graph.get('cli/main.ts')?.length).toBeGreaterThan(0);
  });

  it('has no import from a lower layer to a higher one', () => {
    expect(wrongWayImports(graph)).toEqual([]);
  });

  it('has no import circle', () => {
    expect(importCircles(graph)).toEqual([]);
  });

  it(`has no file over ${MAX_LINES} lines but the stream scanner`, () => {
    const long = files.filter((f) => !LONG_ALLOWED.has(f)).map((f) => ({ f, lines: readFileSync(path.join(SRC, f), 'utf8').split('\n').length - 1 }));
    expect(long.filter((x) => x.lines > MAX_LINES).map((x) => `${x.f}: ${x.lines} lines`)).toEqual([]);
  });
});

/** A function's name as the test lists it: its enclosing names, dotted (`runCommand.handler`), `<callback>` for an unnamed argument. */
function functionName(node: ts.Node): string {
  const parts: string[] = [];
  for (let n: ts.Node | undefined = node; n && !ts.isSourceFile(n); n = n.parent) {
    const named = n as ts.Node & { name?: ts.Node };
    if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isClassDeclaration(n) || ts.isVariableDeclaration(n) || ts.isPropertyAssignment(n) || ts.isGetAccessor(n) || ts.isPropertyDeclaration(n)) && named.name) {
      parts.unshift(named.name.getText());
    } else if (ts.isConstructorDeclaration(n)) parts.unshift('constructor');
    else if (n === node && ts.isCallExpression(n.parent)) parts.unshift('<callback>');
  }
  return parts.join('.') || '<anonymous>';
}

/** Every function of a source text with its length in lines (first to last line, both counted). */
function functionLengths(file: string, text: string): Array<{ name: string; lines: number }> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ name: string; lines: number }> = [];
  const seen = new Map<string, number>();
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const base = `${file}: ${functionName(node)}`;
      const count = (seen.get(base) ?? 0) + 1;
      seen.set(base, count);
      found.push({ name: count === 1 ? base : `${base}#${count}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * Functions over the limit when the rule came, with their lengths: a listed function may shrink, never grow;
 * once split under the limit (or gone) it leaves the list. New code obeys the rule.
 */
const LONG_FUNCTIONS: Record<string, number> = {};

describe('the function-length rule', () => {
  const lengths = files.flatMap((f) => functionLengths(f, readFileSync(path.join(SRC, f), 'utf8')));
  const byName = new Map(lengths.map((l) => [l.name, l.lines]));

  it('measures functions, arrows and methods by their lines, named by where they sit', () => {
    const text = ['export function a() {', '  return 1;', '}', 'const b = {', '  handler: async () => {', '    x();', '    y();', '  },', '};', 'class C {', '  m() {}', '}', 'run(() => 1);'].join('\n');
    expect(functionLengths('t.ts', text)).toEqual([
      { name: 't.ts: a', lines: 3 },
      { name: 't.ts: b.handler', lines: 4 },
      { name: 't.ts: C.m', lines: 1 },
      { name: 't.ts: <callback>', lines: 1 },
    ]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines but those listed`, () => {
    const long = lengths.filter((l) => l.lines > MAX_FUNCTION_LINES && LONG_FUNCTIONS[l.name] === undefined);
    expect(long.map((l) => `${l.name}: ${l.lines} lines`)).toEqual([]);
  });

  it('lets a listed function only shrink, and drops it from the list once it is under the limit or gone', () => {
    const stale = Object.entries(LONG_FUNCTIONS).flatMap(([name, listed]) => {
      const lines = byName.get(name);
      if (lines === undefined) return [`${name}: no longer exists; remove it from LONG_FUNCTIONS`];
      if (lines > listed) return [`${name}: grew from ${listed} to ${lines} lines; split it`];
      if (lines <= MAX_FUNCTION_LINES) return [`${name}: ${lines} lines, under the limit now; remove it from LONG_FUNCTIONS`];
      if (lines < listed) return [`${name}: shrank from ${listed} to ${lines} lines; write ${lines} in LONG_FUNCTIONS`];
      return [];
    });
    expect(stale).toEqual([]);
  });
});
