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
