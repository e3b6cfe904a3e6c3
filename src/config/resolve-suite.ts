import { JudgeSchema, type ApiFlavour, type Followup, type Judge, type PatternType, type PollPolicy, type QuestionExpect, type SearchExpect, type Suite, type Thresholds } from './suite.js';

// A suite with its defaults merged into every item: what the runner plans from.

export interface ResolvedQuestion {
  kind: 'question';
  id: string;
  /** The first question of the conversation. */
  text: string;
  followups: Followup[];
  /** defaults.tags then the question's own, without repeats. */
  tags: string[];
  repeats: number;
  timeoutMs: number;
  api: ApiFlavour;
  poll: PollPolicy;
  expect: QuestionExpect;
}

export interface ResolvedSearch {
  kind: 'search';
  id: string;
  query: string;
  patternType?: PatternType;
  chunkMatches?: boolean;
  contextLines?: number;
  display?: number;
  maxLineLength?: number;
  tags: string[];
  repeats: number;
  timeoutMs: number;
  expect: SearchExpect;
}

/** A suite with the defaults merged into every item: what a runner plans from. */
export interface ResolvedSuite {
  name: string;
  description?: string;
  /** Conversations at once per target. */
  concurrency: number;
  /** Searches at once per target. */
  searchConcurrency: number;
  questions: ResolvedQuestion[];
  searches: ResolvedSearch[];
  /** The judge's settings, defaults filled in; `explicit` when the suite has a judge block. */
  judge: Judge & { explicit: boolean };
  /** Limits on the run's aggregate metrics, as written (each expression valid). */
  thresholds: Thresholds;
}

function mergeTags(defaults: string[], own: string[] | undefined): string[] {
  return [...new Set([...defaults, ...(own ?? [])])];
}

export function resolveSuite(suite: Suite): ResolvedSuite {
  const { defaults } = suite;
  return {
    name: suite.name,
    ...(suite.description === undefined ? {} : { description: suite.description }),
    concurrency: defaults.concurrency,
    searchConcurrency: defaults.searchConcurrency,
    judge: { ...(suite.judge ?? JudgeSchema.parse({})), explicit: suite.judge !== undefined },
    thresholds: suite.thresholds ?? {},
    questions: suite.questions.map((q): ResolvedQuestion => ({
      kind: 'question',
      id: q.id,
      text: q.question,
      followups: q.followups ?? [],
      tags: mergeTags(defaults.tags, q.tags),
      repeats: q.repeats ?? defaults.repeats,
      timeoutMs: q.timeoutMs ?? defaults.timeoutMs,
      api: defaults.api,
      poll: { ...defaults.poll },
      expect: q.expect ?? {},
    })),
    searches: suite.searches.map(({ id, query, tags, repeats, timeoutMs, expect, ...options }): ResolvedSearch => ({
      kind: 'search',
      id,
      query,
      ...options,
      tags: mergeTags(defaults.tags, tags),
      repeats: repeats ?? defaults.repeats,
      timeoutMs: timeoutMs ?? defaults.searchTimeoutMs,
      expect: expect ?? {},
    })),
  };
}
