import { SHOULD_TRACE_HEADER } from '../http/trace-headers.js';
import type { TraceRef } from '../model/conversation.js';
import type { ExpectationResult } from '../model/item.js';
import { keepsTraces, tracesItem, type TraceOperation, type TracedRequest, type TraceSelection } from '../model/trace.js';
import type { ItemContext } from './item-context.js';

// `run --trace`: which of an item's requests ask the instance for a trace, and the traces their replies named.

const ASK = { [SHOULD_TRACE_HEADER]: 'true' } as const;

/** The header that asks for a trace, when the run traces this item; nothing otherwise. */
export function traceHeaders(selection: TraceSelection | undefined, key: string): Record<string, string> | undefined {
  return tracesItem(selection, key) ? ASK : undefined;
}

/** A reply's trace as one of the turn's traced requests; none when the reply named none. */
export function tracedAs(operation: TraceOperation, trace: TraceRef | undefined): TracedRequest[] | undefined {
  return trace ? [{ operation, ...trace }] : undefined;
}

/**
 * Records an item's checks as it ends; under `--trace failed` an item that ended well (`ok`) and passed them
 * keeps no trace link.
 */
export function recordChecks(ctx: Pick<ItemContext, 'run' | 'target'>, key: string, ok: boolean, results: readonly ExpectationResult[]): void {
  const { recorder, runId } = ctx.run;
  if (results.length > 0) recorder.recordExpectations(runId, key, [...results]);
  if (!keepsTraces(ctx.target.trace, !ok || results.some((r) => !r.passed))) recorder.dropTraces(runId, key);
}
