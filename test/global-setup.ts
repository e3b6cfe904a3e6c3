// Builds the CLI once per test run, as `npm run build` does, for every test file that runs it as a child
// process (test/helpers/cli.ts): built from the current sources at each run, so it is never stale.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { buildCli } from '../scripts/build.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The built CLI's folder, and each built file with the source files bundled into it. */
    builtCli: { dir: string; inputs: Array<[string, string[]]> };
  }
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export default async function setup(project: TestProject): Promise<() => void> {
  const dir = path.join(ROOT, 'node_modules', '.cache', 'dsbench-cli-test', String(process.pid));
  const inputs = await buildCli(path.join(dir, 'dist'));
  // src/version.ts reads the nearest package.json; named otherwise than dsbench, so the emulator's corpus is
  // still the project's own node_modules (it looks for the package root by name).
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'dsbench-cli-test', version: pkg.version, type: 'module', private: true }));
  project.provide('builtCli', { dir, inputs: [...inputs] });
  return () => rmSync(dir, { recursive: true, force: true });
}
