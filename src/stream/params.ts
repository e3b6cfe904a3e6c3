import { z } from 'zod';
import { UsageError } from '../errors/errors.js';

/** What to search for; names are dsbench's, `toQuery` maps them to the wire's. */
export const SearchParamsSchema = z
  .object({
    query: z.string().refine((q) => q.trim() !== '', 'the search query is empty'),
    /** Query syntax version (`v`); V3 is the latest and the server's default, sent explicitly as recommended. */
    version: z.string().min(1).default('V3'),
    /** Pattern type (`t`), used only when the query has no `patternType:` filter. */
    patternType: z.enum(['keyword', 'standard', 'regexp']).optional(),
    /** Chunk matches (`cm`). */
    chunkMatches: z.boolean().optional(),
    /** Lines of context around a chunk match (`cl`); only with chunk matches. */
    contextLines: z.number().int().nonnegative().optional(),
    /** Longest line of chunk-match context (`max-line-len`); -1 means no limit. */
    maxLineLen: z.number().int().min(-1).optional(),
    /** Most matches returned (`display`); -1 means no limit. Some servers ignore it. */
    display: z.number().int().min(-1).optional(),
  })
  .strict()
  .refine((p) => p.contextLines === undefined || p.chunkMatches === true, {
    message: 'contextLines (cl) works only with chunkMatches (cm=true)',
    path: ['contextLines'],
  });

export type SearchParamsInput = z.input<typeof SearchParamsSchema>;
export type SearchParams = z.output<typeof SearchParamsSchema>;

export function parseSearchParams(input: SearchParamsInput): SearchParams {
  const parsed = SearchParamsSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'params'}: ${i.message}`).join('; ');
    throw new UsageError(`invalid search parameters: ${problems}`);
  }
  return parsed.data;
}

/** Query string of `GET /.api/search/stream`. */
export function toQuery(params: SearchParams): Record<string, string | number | boolean | undefined> {
  return {
    q: params.query,
    v: params.version,
    t: params.patternType,
    cm: params.chunkMatches,
    cl: params.contextLines,
    'max-line-len': params.maxLineLen,
    display: params.display,
  };
}
