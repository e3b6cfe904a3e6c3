import { z } from 'zod';
import { OptServerText, ServerText } from '../http/server-text.js';
import type { Alert, Filter, Skipped } from './result.js';

// Wire schemas of the events other than `matches` (which has its own fast path). Loose objects: unknown
// fields are ignored; only what the tally relies on is required.

/** The web client's spellings of two reasons, mapped to the wire's. */
const REASON_SPELLINGS: Readonly<Record<string, string>> = {
  'shard-timedout': 'shard-timeout',
  'excluded-fork': 'repository-fork',
};

const SkippedWire = z.looseObject({
  reason: ServerText,
  title: OptServerText,
  message: OptServerText,
  severity: OptServerText,
  suggested: z.looseObject({ title: OptServerText, queryExpression: ServerText }).nullish(),
});

export const ProgressEvent = z
  .looseObject({
    done: z.boolean().nullish(),
    repositoriesCount: z.number().int().nonnegative().nullish(),
    matchCount: z.number().int().nonnegative(),
    durationMs: z.number().nonnegative().nullish(),
    skipped: z.array(SkippedWire).nullish(),
    trace: OptServerText,
  })
  .transform((p) => ({
    done: p.done ?? false,
    repositoriesCount: p.repositoriesCount ?? undefined,
    matchCount: p.matchCount,
    durationMs: p.durationMs ?? undefined,
    skipped: (p.skipped ?? []).map(
      (s): Skipped => ({
        reason: REASON_SPELLINGS[s.reason] ?? s.reason,
        title: s.title ?? '',
        message: s.message ?? '',
        severity: s.severity ?? '',
        ...(s.suggested ? { suggested: { title: s.suggested.title ?? '', queryExpression: s.suggested.queryExpression } } : {}),
      }),
    ),
    trace: p.trace ?? undefined,
  }));
export type Progress = z.output<typeof ProgressEvent>;

/** Each event carries the whole current list; older servers say `limitHit` instead of `exhaustive`. */
export const FiltersEvent = z.array(
  z
    .looseObject({
      value: ServerText,
      label: ServerText,
      count: z.number(),
      kind: OptServerText,
      exhaustive: z.boolean().optional(),
      limitHit: z.boolean().optional(),
    })
    .refine((f) => f.exhaustive !== undefined || f.limitHit !== undefined, 'a filter has neither exhaustive nor limitHit')
    .transform(
      (f): Filter => ({
        value: f.value,
        label: f.label,
        count: f.count,
        kind: f.kind ?? '',
        exhaustive: f.exhaustive ?? !f.limitHit,
      }),
    ),
);

export const AlertEvent = z
  .looseObject({
    title: ServerText,
    description: OptServerText,
    kind: OptServerText,
    proposedQueries: z.array(z.looseObject({ query: ServerText, description: OptServerText })).nullish(),
  })
  .transform(
    (a): Alert => ({
      title: a.title,
      ...(a.description != null ? { description: a.description } : {}),
      ...(a.kind != null ? { kind: a.kind } : {}),
      proposedQueries: (a.proposedQueries ?? []).map((q) => ({
        query: q.query,
        ...(q.description != null ? { description: q.description } : {}),
      })),
    }),
  );

export const ErrorEvent = z.looseObject({ message: ServerText });
