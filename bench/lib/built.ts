// The CLI as it ships: bundled by a checkout's own `scripts/build.ts` (esbuild, a few chunks), so a measured
// process loads what a user's does, not the few hundred separately transpiled files of `transpile`, whose
// extra start-up (about 0.5 s of CPU on a shared machine) no installed dsbench pays.
import { rmSync } from 'node:fs';
import path from 'node:path';

/** Builds `checkout`'s CLI into its node_modules/.cache/<name>; returns the entry's path and a remover. */
export async function builtCli(checkout: string, name: string): Promise<{ main: string; remove: () => void }> {
  const { buildCli } = (await import(path.resolve(checkout, 'scripts/build.ts'))) as { buildCli: (outdir: string) => Promise<unknown> };
  const out = path.resolve(checkout, 'node_modules', '.cache', name);
  await buildCli(out);
  return { main: path.join(out, 'cli', 'main.js'), remove: () => rmSync(out, { recursive: true, force: true }) };
}
