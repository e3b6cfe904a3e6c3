import type { Options } from 'yargs';
import { parseDuration } from '../config/duration.js';
import { UsageError } from '../errors/errors.js';
import { NOTIFY_DEADLINE_MS, notifyOnChange, notifyText, parseReceivers, type NotifyOutcome } from '../notify/index.js';
import type Database from 'better-sqlite3';

// `run --notify URL`: flags, their checks before anything is asked, and the call after the run's verdict.

export const NOTIFY_OPTIONS = {
  notify: {
    type: 'string',
    array: true,
    default: [] as string[],
    describe: "When tonight's verdict differs from the previous night's of the suite (green to red, red to green, a new flaky question), POST to this webhook (repeatable): URL for a Slack-compatible {\"text\"} body, json=URL for the versioned JSON payload",
  },
  'notify-timeout': { type: 'string', default: `${NOTIFY_DEADLINE_MS / 1000}s`, describe: 'The most --notify may add to the run: every receiver is posted to at once, and one that has not answered by then is named in the summary as failed' },
} as const satisfies Record<string, Options>;

export interface NotifyArgs {
  notify: string[];
  notifyTimeout: string;
  shard?: string | undefined;
}

/** Refuses a receiver that is not an http(s) URL, and a shard (a night is the merged run), before anything runs. */
export function checkNotify(argv: NotifyArgs): void {
  if (argv.notify.length === 0) return;
  parseReceivers(argv.notify);
  parseDuration(argv.notifyTimeout, '--notify-timeout');
  if (argv.shard !== undefined) throw new UsageError('--notify compares whole nights: give it to no --shard (a shard is part of a night)');
}

/**
 * After the verdict: posts if the night changed, and gives what the summary says of it: its lines of text,
 * or the `notify` field of `run --json`. Nothing without --notify.
 */
export async function notifyAfterRun(db: Database.Database, run: { id: number; suiteName: string }, argv: NotifyArgs, as: 'text'): Promise<string>;
export async function notifyAfterRun(db: Database.Database, run: { id: number; suiteName: string }, argv: NotifyArgs, as: 'json'): Promise<{ notify?: NotifyOutcome }>;
export async function notifyAfterRun(db: Database.Database, run: { id: number; suiteName: string }, argv: NotifyArgs, as: 'text' | 'json'): Promise<string | { notify?: NotifyOutcome }> {
  if (argv.notify.length === 0) return as === 'text' ? '' : {};
  const outcome = await notifyOnChange(db, run.id, run.suiteName, parseReceivers(argv.notify), parseDuration(argv.notifyTimeout, '--notify-timeout'));
  return as === 'text' ? notifyText(outcome) : { notify: outcome };
}
