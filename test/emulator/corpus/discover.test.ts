import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dependencyFolder } from '../../../src/emulator/corpus/discover.js';

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

/** Writes `<folder>/<name>/package.json` for each name. */
function packages(folder: string, names: string[], dependencies: Record<string, string> = {}): void {
  for (const name of names) {
    mkdirSync(path.join(folder, name), { recursive: true });
    writeFileSync(path.join(folder, name, 'package.json'), JSON.stringify({ name, dependencies }));
  }
}

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'dsbench-deps-'));
  dirs.push(dir);
  return dir;
}

const DEPS = { undici: '1', yaml: '1', zod: '1' };

describe("the folder holding dsbench's dependencies (the default corpus)", () => {
  it('is the project node_modules where npm hoisted them when dsbench is a dependency', () => {
    const project = tempDir();
    packages(path.join(project, 'node_modules'), ['dsbench'], DEPS);
    packages(path.join(project, 'node_modules'), ['undici', 'yaml', 'left-pad']);
    // One dependency at a version the project does not share, nested under dsbench.
    packages(path.join(project, 'node_modules/dsbench/node_modules'), ['zod']);
    expect(dependencyFolder(path.join(project, 'node_modules/dsbench'))).toBe(path.join(project, 'node_modules'));
  });

  it("is dsbench's own node_modules in a global install or a clone", () => {
    const prefix = tempDir();
    const root = path.join(prefix, 'lib/node_modules/dsbench');
    packages(path.join(prefix, 'lib/node_modules'), ['dsbench'], DEPS);
    packages(path.join(root, 'node_modules'), ['undici', 'yaml', 'zod']);
    packages(path.join(prefix, 'lib/node_modules'), ['npm', 'corepack']);
    expect(dependencyFolder(root)).toBe(path.join(root, 'node_modules'));
  });

  it("falls back to dsbench's own node_modules when none is installed, so the error names that folder", () => {
    const prefix = tempDir();
    packages(prefix, ['dsbench'], DEPS);
    expect(dependencyFolder(path.join(prefix, 'dsbench'))).toBe(path.join(prefix, 'dsbench/node_modules'));
  });
});
