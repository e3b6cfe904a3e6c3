/**
 * The Deep Search conversation API a run speaks: the legacy REST one or the versioned (Connect-RPC) one. A plain
 * tuple, the one source of the type and of the zod enum built from it (model/conversation.ts): the CLI reads it
 * at start-up, before any schema library is loaded.
 */
export const API_FLAVOURS = ['legacy', 'versioned'] as const;
export type ApiFlavour = (typeof API_FLAVOURS)[number];
export const DEFAULT_API: ApiFlavour = 'versioned';

/**
 * The one rule for a run's API: a run started before (a resume, or the run a rerun takes its items from)
 * keeps its own, since its stored conversations belong to it; else the flag; else the suite's; else the default.
 */
export function apiFlavourOf(from: { stored?: ApiFlavour | undefined; given?: ApiFlavour | undefined; suite?: ApiFlavour | undefined }): ApiFlavour {
  return from.stored ?? from.given ?? from.suite ?? DEFAULT_API;
}
