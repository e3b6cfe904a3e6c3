import { z } from 'zod';

// The versioned JSON payload `--notify json=URL` posts. Its JSON Schema is generated from this zod schema
// (schemas/notify-payload.schema.json); a change that breaks a receiver is a new schemaVersion.

export const NOTIFY_SCHEMA_VERSION = 1;

export const CHANGE_KINDS = ['green-to-red', 'red-to-green', 'new-flaky'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

const nightSchema = z.object({
  runId: z.number().int(),
  label: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  /** green: the run's own verdict (items, checks, the suite's thresholds) passed; red: it did not. */
  verdict: z.enum(['green', 'red']),
  /** The exit code that verdict calls for (docs/exit-codes.md). */
  exitCode: z.number().int(),
  /** Questions whose repeats disagreed, as `target/question-id`. */
  flaky: z.array(z.string()),
});

export const notifyPayloadSchema = z.object({
  schemaVersion: z.literal(NOTIFY_SCHEMA_VERSION),
  event: z.literal('verdict-changed'),
  suite: z.string(),
  targets: z.array(z.string()),
  changes: z.array(z.enum(CHANGE_KINDS)).min(1),
  tonight: nightSchema,
  previous: nightSchema,
  /** Flaky tonight, not the night before. */
  newFlaky: z.array(z.string()),
  /** The same news in one line of text (what a Slack receiver is sent). */
  text: z.string(),
});

export type NotifyNight = z.infer<typeof nightSchema>;
export type NotifyPayload = z.infer<typeof notifyPayloadSchema>;
