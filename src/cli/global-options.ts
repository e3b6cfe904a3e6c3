import path from 'node:path';
import type { Argv } from 'yargs';
import { parseDuration } from '../config/duration.js';
import { parseSize } from '../config/size.js';
import { UsageError } from '../errors/errors.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import { API_FLAVOURS, DEFAULT_API, type ApiFlavour } from '../model/api-flavour.js';
import type { CliIo } from './io.js';

/** Options every command takes. */
export function commonOptions<T>(y: Argv<T>) {
  return y.option('json', { type: 'boolean', default: false, describe: 'Print JSON instead of text', global: true });
}

export { API_FLAVOURS, DEFAULT_API } from '../model/api-flavour.js';

/** Commands that talk to an instance: its address, API flavour, retries and timeouts. */
export const NETWORK_COMMANDS: ReadonlySet<string> = new Set(['ask', 'conversations', 'run', 'search', 'suite', 'confirm']);

/** The common options, plus the network ones for commands that talk to an instance (and for the top-level help). */
export function globalOptions<T>(y: Argv<T>, network = true): Argv<GlobalArgs> {
  const common = commonOptions(y);
  return (network ? networkOptions(common) : common) as unknown as Argv<GlobalArgs>;
}

function networkOptions<T>(y: Argv<T>) {
  return y
    .option('endpoint', {
      type: 'string',
      describe: 'Base URL of the instance (default: SRC_ENDPOINT; with neither, the embedded emulator)',
      global: true,
    })
    // No yargs default: `run` must tell a flag given from none, since the suite's api then decides.
    .option('api', {
      choices: API_FLAVOURS,
      describe: `Deep Search API flavour (default: ${DEFAULT_API})`,
      global: true,
    })
    .option('max-attempts', { type: 'number', describe: 'Attempts per request, the first included, for 429, 502-504 and connection errors (default 5)', global: true })
    .option('retry-base-delay', { type: 'string', describe: 'Backoff base: attempt n waits up to base x 2^(n-1), with full jitter (default 500ms)', global: true })
    .option('max-retry-delay', { type: 'string', describe: 'Longest wait between attempts; a longer Retry-After is not waited for (default 30s)', global: true })
    .option('request-timeout', { type: 'string', describe: 'Timeout of one attempt of a request (default 30s)', global: true })
    .option('max-reply-size', { type: 'string', describe: 'Largest reply body read (default 64MB); a larger one fails, not retried. Stream events have their own 10 MB bound', global: true });
}

/** The transport settings the global flags give; absent ones keep the defaults. */
export function transportSettings(argv: GlobalArgs): { retry: Partial<RetryPolicy>; timeoutMs?: number; maxReplyBytes?: number } {
  const retry: Partial<RetryPolicy> = {};
  if (argv.maxAttempts !== undefined) {
    if (!(Number.isInteger(argv.maxAttempts) && argv.maxAttempts >= 1 && argv.maxAttempts <= 100)) {
      throw new UsageError(`--max-attempts must be an integer from 1 to 100, got ${argv.maxAttempts}`);
    }
    retry.maxAttempts = argv.maxAttempts;
  }
  // 0: retries at once (a local emulator), which the retry policy allows.
  if (argv.retryBaseDelay !== undefined) retry.baseDelayMs = parseDuration(argv.retryBaseDelay, '--retry-base-delay', { zero: true });
  if (argv.maxRetryDelay !== undefined) retry.maxDelayMs = parseDuration(argv.maxRetryDelay, '--max-retry-delay', { zero: true });
  const timeoutMs = argv.requestTimeout !== undefined ? parseDuration(argv.requestTimeout, '--request-timeout') : undefined;
  if (timeoutMs !== undefined && !(timeoutMs > 0)) throw new UsageError('--request-timeout must be longer than 0');
  const maxReplyBytes = argv.maxReplySize !== undefined ? parseSize(argv.maxReplySize, '--max-reply-size') : undefined;
  return { retry, ...(timeoutMs !== undefined && { timeoutMs }), ...(maxReplyBytes !== undefined && { maxReplyBytes }) };
}

export interface GlobalArgs {
  endpoint?: string | undefined;
  /** Undefined when not given: DEFAULT_API, except for `run`, where the suite's own api comes first. */
  api?: ApiFlavour | undefined;
  json: boolean;
  maxAttempts?: number | undefined;
  retryBaseDelay?: string | undefined;
  maxRetryDelay?: string | undefined;
  requestTimeout?: string | undefined;
  maxReplySize?: string | undefined;
}

/**
 * A path from the command line as the command opens it: as given when it names the same file from the
 * process's own directory (so messages keep what the user typed), otherwise resolved against `io.cwd`.
 */
function fromCwd(io: CliIo, file: string): string {
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
