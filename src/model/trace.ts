import { UsageError } from '../errors/errors.js';
import { codeUnits, fnv1a, mulberry32 } from '../random.js';
import type { TraceRef } from './conversation.js';

// Which items of a run ask the instance to trace their requests (`run --trace`), and what a traced request left.

/** `all`; `failed` (every item traced, links kept only for items that failed or erred); or a share of the items. */
export type TraceSelection = { kind: 'all' } | { kind: 'failed' } | { kind: 'fraction'; fraction: number };

/** The request of an item a trace belongs to. */
export type TraceOperation = 'create' | 'poll' | 'follow-up' | 'search';

/** The trace of one request of an item, as its reply named it. */
export interface TracedRequest extends TraceRef {
  operation: TraceOperation;
}

/** `all`, `failed` or a fraction in 0..1 (`0.1`); anything else is a usage error naming the flag. */
export function parseTraceSelection(given: string, flag = '--trace'): TraceSelection {
  const word = given.trim().toLowerCase();
  if (word === 'all' || word === 'failed') return { kind: word };
  const fraction = /^(\d+(\.\d*)?|\.\d+)$/.test(word) ? Number(word) : Number.NaN;
  if (!Number.isFinite(fraction) || fraction < 0 || fraction > 1) {
    throw new UsageError(`${flag} ${JSON.stringify(given)}: give all, failed, or a fraction of the items between 0 and 1 (such as 0.1)`);
  }
  return { kind: 'fraction', fraction };
}

/** The selection as `--trace` writes it (the run's options record it so). */
export function traceSelectionText(selection: TraceSelection): string {
  return selection.kind === 'fraction' ? String(selection.fraction) : selection.kind;
}

/**
 * Whether an item's requests are traced. A fraction draws once per item from a generator seeded with the
 * item's key, so a rerun (or a resume) traces the same items.
 */
export function tracesItem(selection: TraceSelection | undefined, key: string): boolean {
  if (selection === undefined) return false;
  if (selection.kind !== 'fraction') return true;
  return mulberry32(fnv1a(codeUnits(key)))() < selection.fraction;
}

/** Whether an item keeps its trace links once it ended: all of them but those `failed` passes over. */
export function keepsTraces(selection: TraceSelection | undefined, failedOrErred: boolean): boolean {
  return selection?.kind !== 'failed' || failedOrErred;
}
