import { z } from 'zod';
import { ApiFlavourSchema, ErrorCodeSchema } from '../model/conversation.js';
import { DURATION_HELP } from './duration.js';
import { DurationSchema } from './duration-schema.js';
import { compilePattern } from './pattern.js';
import { formatPath } from './suite-issues.js';
import { example, parseThreshold, THRESHOLD_METRIC_NAMES, THRESHOLD_METRICS, type ThresholdMetric } from './thresholds.js';
import { generatedChecksShape, ProvenanceSchema, SuiteProvenanceSchema } from './generated-schema.js';

/*
 * The suite file format. This schema is the single source of the TypeScript types, of the checks the
 * loader runs, and (through z.toJSONSchema on the input side) of suites/suite.schema.json.
 *
 * Parsed output differs from the file in three ways: durations become milliseconds under a name
 * ending in `Ms` (`timeout` -> `timeoutMs`), fields that take "one or a list" become lists, and
 * follow-ups become `{ text, expect }` objects.
 */

const MAX_TEXT_CHARS = 100_000;

function duration(what: string): typeof DurationSchema {
  return DurationSchema.describe(`${what} Duration: ${DURATION_HELP}.`);
}

function oneOrMany(item: z.ZodType<string>, what: string) {
  return z
    .union([item, z.array(item)])
    .transform((value): string[] => (Array.isArray(value) ? value : [value]))
    .describe(`${what} One string or a list of strings.`);
}

const IdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]+$/, { error: (issue) => `${JSON.stringify(issue.input)} is not a valid id; use letters, digits, ".", "_" and "-"` })
  .describe(
    'Stable identity of the item in results and comparisons across runs: letters, digits, ".", "_", "-". ' +
      'Unique across questions and searches.',
  );

const TextSchema = z
  .string()
  .max(MAX_TEXT_CHARS)
  .regex(/\S/, { error: 'must not be empty' });

const TagSchema = z
  .string()
  .regex(/^[A-Za-z0-9._:-]+$/, { error: (issue) => `${JSON.stringify(issue.input)} is not a valid tag; use letters, digits, ".", "_", ":" and "-"` });

const TagsSchema = z.array(TagSchema);

const RepeatsSchema = z.number().int().min(1);

const PatternSchema = z.string().superRefine((text, ctx) => {
  try {
    compilePattern(text);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `invalid regular expression ${JSON.stringify(text)}: ${(error as Error).message}`, input: text });
  }
});

export const ExpectedStateSchema = z
  .enum(['completed', 'error', 'canceled', 'timeout'])
  .describe('Final state: completed, error, canceled, or timeout (dsbench gave up after the timeout).');
export type ExpectedState = z.infer<typeof ExpectedStateSchema>;

const turnExpectShape = {
  contains: oneOrMany(z.string().min(1), 'Text the answer must contain (case-insensitive substring).').optional(),
  notContains: oneOrMany(z.string().min(1), 'Text the answer must not contain (case-insensitive substring).').optional(),
  matches: oneOrMany(
    PatternSchema,
    'JavaScript regular expressions the answer must match, as source (`retr(y|ies)`) or /source/flags (`/retry/i`; flags d, i, m, s, u, v).',
  ).optional(),
  sourcesInclude: oneOrMany(z.string().min(1), 'Repositories (e.g. github.com/npm/undici) that must each appear among the sources.').optional(),
  state: ExpectedStateSchema.optional(),
  errorCode: ErrorCodeSchema.optional().describe('Normalized error code the turn must end with; implies state error.'),
  rubric: TextSchema.optional().describe('What a good answer must say or do, for the judge (graded 0 to 1). See docs/grading.md.'),
  reference: TextSchema.optional().describe('A known good answer the judge compares the answer with.'),
  minScore: share('Lowest judge score (0 to 1) that passes; needs a rubric or a reference. Default judge.minScore.').optional(),
  cites: oneOrMany(
    z.string().min(1),
    'Files, paths or symbols the answer must cite: a path (`lib/handler/retry-handler.js`, matched as a suffix of a cited path, with or without its repository) or a symbol (matched in the text of a cited link). Recall is recorded; each must be cited to pass.',
  ).optional(),
  minCitationValidity: share('Lowest share (0 to 1) of the turn\'s citations that must resolve (repository, file and lines exist).').optional(),
  ...generatedChecksShape,
};

function share(what: string) {
  return z.number().min(0).max(1).describe(what);
}

/** errorCode only makes sense for a turn that ended in error; a minimum score needs something to grade against. */
function checkErrorState(
  expect: { state?: ExpectedState | undefined; errorCode?: unknown; minScore?: number | undefined; rubric?: string | undefined; reference?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (expect.errorCode !== undefined && expect.state !== undefined && expect.state !== 'error') {
    ctx.addIssue({ code: 'custom', path: ['state'], message: `must be "error" (or left out) when errorCode is set, got "${expect.state}"` });
  }
  if (expect.minScore !== undefined && expect.rubric === undefined && expect.reference === undefined) {
    ctx.addIssue({ code: 'custom', path: ['minScore'], message: 'needs a rubric or a reference to grade against' });
  }
}

export const TurnExpectSchema = z
  .strictObject(turnExpectShape)
  .superRefine(checkErrorState)
  .describe('Checks on this turn. All optional; a check that is left out is not made.');
export type TurnExpect = z.output<typeof TurnExpectSchema>;

export const QuestionExpectSchema = z
  .strictObject({
    ...turnExpectShape,
    maxCredits: z.number().min(0).optional().describe('Most credits the whole conversation may use, summed over all turns.'),
    maxTotalTokens: z.number().int().min(0).optional().describe('Most tokens the whole conversation may use, summed over all turns.'),
    maxSeconds: z.number().positive().optional().describe('Most server-side seconds the conversation may take, summed over all turns.'),
  })
  .superRefine(checkErrorState)
  .describe('Checks on the last turn (answer, sources, state); max* are totals over all turns. All optional.');
export type QuestionExpect = z.output<typeof QuestionExpectSchema>;

/** A follow-up after parsing: always an object, with an empty expect when none was given. */
export interface Followup {
  text: string;
  expect: TurnExpect;
}

export const FollowupSchema = z
  .union([
    TextSchema.describe('A follow-up question, asked in the same conversation.'),
    z.strictObject({
      question: TextSchema.describe('The follow-up question.'),
      expect: TurnExpectSchema.optional(),
    }),
  ])
  .transform((f): Followup => (typeof f === 'string' ? { text: f, expect: {} } : { text: f.question, expect: f.expect ?? {} }))
  .describe('A follow-up: its text, or {question, expect} to check its own answer.');

export const PollSchema = z
  .strictObject({
    strategy: z
      .enum(['adaptive', 'fixed'])
      .default('adaptive')
      .describe('adaptive: learn the answer-time distribution and poll less where answers are unlikely, with the mean detection lag of a fixed poll every interval; fixed: always wait interval.'),
    interval: duration('Wait between polls (fixed); for adaptive, the fixed poll whose mean detection lag it matches with fewer requests. Parsed to intervalMs.').prefault('3s'),
    min: duration('Shortest wait between polls. Parsed to minMs.').prefault('1s'),
    max: duration('Longest wait between polls. Parsed to maxMs.').prefault('15s'),
  })
  .superRefine((poll, ctx) => {
    if (poll.min > poll.max) ctx.addIssue({ code: 'custom', path: ['min'], message: 'must not be longer than max' });
  })
  .transform(({ interval, min, max, ...rest }) => ({ ...rest, intervalMs: interval, minMs: min, maxMs: max }))
  .describe('How to poll a question until it ends.');
export type PollPolicy = z.output<typeof PollSchema>;

export const DefaultsSchema = z
  .strictObject({
    api: ApiFlavourSchema.default('versioned').describe('Conversation API: versioned (current) or legacy.'),
    repeats: RepeatsSchema.default(1).describe('How many times each item runs (per target).'),
    timeout: duration('Per-question timeout, all turns together. Parsed to timeoutMs.').prefault('300s'),
    concurrency: z.number().int().min(1).default(4).describe('Conversations at once per target.'),
    searchConcurrency: z.number().int().min(1).default(2).describe('Searches at once per target.'),
    poll: PollSchema.prefault({}),
    tags: TagsSchema.default([]).describe('Tags added to every question and search.'),
    searchTimeout: duration('Per-search timeout. Parsed to searchTimeoutMs.').prefault('60s'),
  })
  .transform(({ timeout, searchTimeout, ...rest }) => ({ ...rest, timeoutMs: timeout, searchTimeoutMs: searchTimeout }))
  .describe('Settings for every item, each overridable where the item has the same field.');
export type Defaults = z.output<typeof DefaultsSchema>;

export const JudgeSchema = z
  .strictObject({
    endpoint: z
      .enum(['instance', 'external'])
      .default('instance')
      .describe(
        "instance: the target's own LLM API (/.api/llm) with the target's token, unless DSBENCH_JUDGE_ENDPOINT is set; external: the OpenAI-compatible endpoint of DSBENCH_JUDGE_ENDPOINT (token DSBENCH_JUDGE_TOKEN), required then.",
      ),
    model: z.string().min(1).optional().describe('Judge model id (e.g. anthropic::2024-10-22::claude-sonnet-4-latest); DSBENCH_JUDGE_MODEL overrides it. Default: the first model the instance lists.'),
    preamble: TextSchema.optional().describe('Text put before every rubric, e.g. what the team values in an answer.'),
    minScore: share('Lowest passing score of a turn with a rubric or reference that sets no minScore of its own.').default(0.6),
    during: z
      .enum(['run', 'never'])
      .default('run')
      .describe('run: grade each item once it ends, during the run; never: only with dsbench grade RUN.'),
    concurrency: z.number().int().min(1).max(64).default(2).describe('Judge calls at once (per run, shared by all targets).'),
    citations: z.boolean().default(true).describe('Check the citations of every answered turn (repository, file, lines) through the raw file endpoint.'),
    citationConcurrency: z.number().int().min(1).max(64).default(4).describe('Citation checks at once per target.'),
  })
  .describe('The judge that grades answers and checks citations. Without this block only turns with cites, citesRecall or minCitationValidity have citations checked, and turns with a rubric or reference are graded with the defaults.');
export type Judge = z.output<typeof JudgeSchema>;

function thresholdList(metric: ThresholdMetric) {
  const expression = z.string().superRefine((text, ctx) => {
    const parsed = parseThreshold(metric, text);
    if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: parsed, input: text });
  });
  return oneOrMany(expression, `${THRESHOLD_METRICS[metric].description} E.g. ${example(metric)}.`).optional();
}

export const ThresholdsSchema = z
  .strictObject(Object.fromEntries(THRESHOLD_METRIC_NAMES.map((m) => [m, thresholdList(m)])) as Record<ThresholdMetric, ReturnType<typeof thresholdList>>)
  .describe(
    'Limits on the run\'s aggregate metrics, k6 style: "[aggregation] operator value" (p95 < 4m, < 0.05, sum < 500), each checked per target and for the whole run. ' +
      'A threshold crossed, or a metric that was not measured, fails the run with exit code 9. See docs/suites.md.',
  );
export type Thresholds = z.output<typeof ThresholdsSchema>;

export const QuestionSchema = z
  .strictObject({
    id: IdSchema,
    question: TextSchema.describe(`The question, as asked to Deep Search (at most ${MAX_TEXT_CHARS} characters).`),
    followups: z.array(FollowupSchema).optional().describe('Questions asked after the first, in order, in the same conversation.'),
    tags: TagsSchema.optional().describe('Tags of this question, added to defaults.tags.'),
    repeats: RepeatsSchema.optional().describe('Overrides defaults.repeats.'),
    timeout: duration('Overrides defaults.timeout. Parsed to timeoutMs.').optional(),
    expect: QuestionExpectSchema.optional(),
    generated: ProvenanceSchema.optional(),
  })
  .transform(({ timeout, ...rest }) => ({ ...rest, timeoutMs: timeout }))
  .describe('A Deep Search conversation: a question and optional follow-ups.');
export type Question = z.output<typeof QuestionSchema>;

export const PatternTypeSchema = z.enum(['standard', 'keyword', 'regexp']).describe('How the query is interpreted.');
export type PatternType = z.infer<typeof PatternTypeSchema>;

const countSchema = (what: string) => z.number().int().min(0).optional().describe(what);

export const SearchExpectSchema = z
  .strictObject({
    exhaustive: z.boolean().optional().describe('Whether the search must (true) or must not (false) be exhaustive: no limit hit, nothing skipped.'),
    count: countSchema('Exact number of matches.'),
    minCount: countSchema('Fewest matches.'),
    maxCount: countSchema('Most matches.'),
  })
  .superRefine((expect, ctx) => {
    if (expect.minCount !== undefined && expect.maxCount !== undefined && expect.minCount > expect.maxCount) {
      ctx.addIssue({ code: 'custom', path: ['minCount'], message: `must not be more than maxCount (${expect.maxCount})` });
    }
    const outside =
      expect.count !== undefined &&
      ((expect.minCount !== undefined && expect.count < expect.minCount) || (expect.maxCount !== undefined && expect.count > expect.maxCount));
    if (outside) ctx.addIssue({ code: 'custom', path: ['count'], message: 'is outside minCount..maxCount, so no result could pass' });
  })
  .describe('Checks on the search result. All optional.');
export type SearchExpect = z.output<typeof SearchExpectSchema>;

export const SearchSchema = z
  .strictObject({
    id: IdSchema,
    query: TextSchema.describe('The search query, e.g. "fetch count:all".'),
    patternType: PatternTypeSchema.optional(),
    chunkMatches: z.boolean().optional().describe('Return chunk matches instead of line matches (cm).'),
    contextLines: z.number().int().min(0).optional().describe('Lines of context around each match (cl).'),
    display: z.number().int().min(-1).optional().describe('How many results the server sends in full; -1 for no limit.'),
    maxLineLength: z.number().int().min(-1).optional().describe('Longest line the server returns; -1 for no limit.'),
    timeout: duration('Overrides defaults.searchTimeout. Parsed to timeoutMs.').optional(),
    tags: TagsSchema.optional().describe('Tags of this search, added to defaults.tags.'),
    repeats: RepeatsSchema.optional().describe('Overrides defaults.repeats.'),
    expect: SearchExpectSchema.optional(),
  })
  .transform(({ timeout, ...rest }) => ({ ...rest, timeoutMs: timeout }))
  .describe('A streaming code search.');
export type Search = z.output<typeof SearchSchema>;

/** `firstUse` names the item that has the id already, with its line when the loader knows it. */
export function duplicateIdMessage(id: string, firstUse: string): string {
  return `duplicate id "${id}", first used by ${firstUse}; ids must be unique across questions and searches`;
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null) : [];
}

/** Suite-wide checks. They run even when items have other errors, so one pass reports everything. */
function checkSuite(value: unknown, ctx: z.RefinementCtx): void {
  if (typeof value !== 'object' || value === null) return;
  const { questions, searches } = value as Record<string, unknown>;
  if (Array.isArray(questions) && Array.isArray(searches) && questions.length + searches.length === 0) {
    ctx.addIssue({ code: 'custom', message: 'empty suite: add at least one item under questions or searches' });
  }
  const firstUse = new Map<string, PropertyKey[]>();
  for (const list of ['questions', 'searches'] as const) {
    records(list === 'questions' ? questions : searches).forEach((item, index) => {
      if (typeof item.id !== 'string') return;
      const path = [list, index, 'id'];
      const first = firstUse.get(item.id);
      if (first === undefined) {
        firstUse.set(item.id, path);
        return;
      }
      ctx.addIssue({
        code: 'custom',
        path,
        message: duplicateIdMessage(item.id, formatPath(first)),
        params: { duplicate: { id: item.id, firstUse: first } },
      });
    });
  }
}

export const SuiteSchema = z
  .strictObject({
    $schema: z.string().optional().describe('JSON Schema of this file, for editors; ignored by dsbench.'),
    name: z
      .string()
      .regex(/^[a-z0-9._-]+$/, {
        error: (issue) => `${JSON.stringify(issue.input)} is not a valid name; use lower-case letters, digits, ".", "_" and "-"`,
      })
      .describe('Suite name, recorded with every run: lower-case letters, digits, ".", "_", "-".'),
    description: z.string().optional().describe('What the suite measures, for people.'),
    defaults: DefaultsSchema.prefault({}),
    judge: JudgeSchema.optional(),
    thresholds: ThresholdsSchema.optional(),
    questions: z.array(QuestionSchema).default([]).describe('Deep Search questions.'),
    searches: z.array(SearchSchema).default([]).describe('Streaming code searches.'),
    generated: SuiteProvenanceSchema.optional(),
  })
  .superRefine(checkSuite, { when: () => true })
  .meta({
    title: 'dsbench suite',
    description: 'Questions for Deep Search and streaming code searches that dsbench runs, with what to expect of each.',
  });
export type Suite = z.output<typeof SuiteSchema>;
/** A suite as written in the file, before defaults and normalization. */
export type SuiteInput = z.input<typeof SuiteSchema>;

export type { ApiFlavour } from '../model/api-flavour.js';
