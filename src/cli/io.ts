import path from 'node:path';
import type { Env } from '../config/credentials.js';

/** Where a command writes its text: stdout or stderr, a terminal's when `isTTY` (`columns` wide). */
export interface CliOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean | undefined;
  readonly columns?: number | undefined;
}

/**
 * Everything of its process a command line uses: its output streams, environment and working directory.
 * The bin entry (main.ts) gives the real process's; a test gives its own, and reads what was written.
 */
export interface CliIo {
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
  readonly env: Env;
  /** The directory relative paths on the command line are read from. */
  readonly cwd: string;
}

/** What a command runs with: the caller's io, and the exit code the command ends with (0 unless it sets one). */
export interface CommandContext extends CliIo {
  exitCode: number;
}

/**
 * A path from the command line as the command opens it: as given when it names the same file from the
 * process's own directory (so messages keep what the user typed), otherwise resolved against `io.cwd`.
 */
export function fromCwd(io: CliIo, file: string): string {
  const resolved = path.resolve(io.cwd, file);
  return resolved === path.resolve(file) ? file : resolved;
}

/**
 * For an option or positional that names a file or folder: its value read from `io.cwd`. A flag given twice
 * arrives as a list (refused later, by runCli, unless both name the same file).
 */
export function pathOption(io: CliIo) {
  return { coerce: <T extends string | string[]>(given: T): T => (Array.isArray(given) ? given.map((file) => fromCwd(io, file)) : fromCwd(io, given)) as T };
}
