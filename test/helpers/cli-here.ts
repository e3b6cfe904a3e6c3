// The shipped command line run in the test's own process, through runCli (src/cli/cli.ts): the same parsing,
// commands and error output as the binary, with stdout and stderr captured. For what needs a process of its
// own (signals, exit codes as a shell sees them, start-up) tests run the built CLI (cli.ts beside this).
import { runCli } from '../../src/cli/cli.js';
import { ROOT } from './cli.js';

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `dsbench <args>` here, with only `env` for its environment (no SRC_*, no CI), in the project folder. */
export async function dsbenchHere(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { ...env },
    cwd: ROOT,
  });
  return { code, stdout, stderr };
}

/**
 * The environment of a terminal too wide to wrap anything (COLUMNS): for tests of what the text says on one
 * line, not of how it is fitted to a terminal (test/report/text-fit.test.ts, test/cli/text-width.test.ts).
 */
export const WIDE = { COLUMNS: '10000' };
