import { z } from 'zod';
import type { ItemOutcome, TurnRecord, TurnState } from '../model/item.js';

// What a run tells its observers (the progress display, trace bookkeeping, tests), as inspect_ai's events
// and vitest's reporter hooks do: one definition, each event's data plain values, nothing of the runner's
// context. Emitted, never parsed on the way (a poll is on the hot path); the schema documents the shape
// and lets an observer that reads events from elsewhere check them.

const key = z.string().describe('the item: <target>/<kind>/<id>/<repeat>');
const turn = z.number().int().nonnegative().describe('0 is the first question, then each follow-up');
/** Milliseconds since the epoch, when the runner saw it. */
const at = z.number();

export const ItemSummarySchema = z.object({
  outcome: z.custom<ItemOutcome>((v) => typeof v === 'string'),
  /** Null when the API reported no credits (the versioned API has no stats). */
  credits: z.number().nullable(),
  passed: z.number().int(),
  failed: z.number().int(),
  /** A conversation's turns as recorded, in order, for grading. */
  turns: z.custom<readonly TurnRecord[]>((v) => Array.isArray(v)).optional(),
});

export const RunEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('run-started'),
    at,
    runId: z.number().int(),
    total: z.number().int(),
    /** Items already finished by an earlier process (resume). */
    alreadyDone: z.number().int(),
    targets: z.array(z.string()),
  }),
  z.object({ type: z.literal('item-started'), at, key }),
  /** The turn is on the server (its create or follow-up was acknowledged and recorded) in conversation `ref`. */
  z.object({ type: z.literal('turn-sent'), at, key, turn, ref: z.string() }),
  /** A poll's reply: the turn's state as the server names it, absent while the turn is not in the conversation yet. */
  z.object({ type: z.literal('turn-polled'), at, key, turn, ref: z.string(), state: z.string().optional() }),
  z.object({
    type: z.literal('turn-ended'),
    at,
    key,
    turn,
    state: z.custom<TurnState>((v) => typeof v === 'string'),
    polls: z.number().int(),
    wallMs: z.number().optional(),
    serverMs: z.number().optional(),
  }),
  /** Also for an item skipped (outcome `skipped`, after an item-started), so done reaches the total. */
  z.object({ type: z.literal('item-ended'), at, key, summary: ItemSummarySchema }),
  /** Something a person watching should know (quota decisions, stops, retries that gave up): redacted, terminal-safe. */
  z.object({ type: z.literal('log'), at, message: z.string() }),
  z.object({ type: z.literal('run-ended'), at, runId: z.number().int() }),
]);

export type RunEvent = z.infer<typeof RunEventSchema>;
export type RunEventType = RunEvent['type'];
/** The event of one type. */
export type RunEventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;
/** An event as emitted: its time is added by the emitter. */
export type RunEventData = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'at'> : never) : never;

/**
 * Watches a run's events. Called synchronously, in order; an observer that throws is detached (RunEvents).
 * An event and what it carries (an item's recorded turns) are shared with the runner and the other observers: read them, never change them.
 */
export interface RunObserver {
  /** Named in the message when it fails. */
  readonly name?: string | undefined;
  onEvent(event: RunEvent): void;
}
