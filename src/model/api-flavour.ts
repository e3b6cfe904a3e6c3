import { z } from 'zod';

/** The Deep Search conversation API a run speaks: the legacy REST one or the versioned (Connect-RPC) one. */
export const ApiFlavourSchema = z.enum(['legacy', 'versioned']);
export type ApiFlavour = z.infer<typeof ApiFlavourSchema>;

export const API_FLAVOURS = ApiFlavourSchema.options;
export const DEFAULT_API: ApiFlavour = 'versioned';

/**
 * The one rule for a run's API: a run started before (a resume, or the run a rerun takes its items from)
 * keeps its own, since its stored conversations belong to it; else the flag; else the suite's; else the default.
 */
export function apiFlavourOf(from: { stored?: ApiFlavour | undefined; given?: ApiFlavour | undefined; suite?: ApiFlavour | undefined }): ApiFlavour {
  return from.stored ?? from.given ?? from.suite ?? DEFAULT_API;
}
