import { z } from 'zod';

/*
 * The parts of the suite format that generated suites use (docs/generate.md): two checks whose answers a
 * program can verify (recall over a list of files, a number within a tolerance) and the provenance of
 * generated questions and suites. Any suite may use the checks.
 */

const RELATIVE_TOLERANCE = /^(\d+(?:\.\d+)?)%$/;

/** A tolerance as written: an absolute amount (`2`) or a share of the expected number (`"10%"`). */
export const ToleranceSchema = z
  .union([
    z.number().min(0),
    z.string().regex(RELATIVE_TOLERANCE, { error: (issue) => `${JSON.stringify(issue.input)} is not a tolerance; write a number (2) or a percentage ("10%")` }),
  ])
  .describe('How far from the expected number a stated number may be: an amount (2) or a percentage of the expected number ("10%").');

/** The widest distance a tolerance allows around `expected`. */
export function toleranceOf(tolerance: number | string, expected: number): number {
  if (typeof tolerance === 'number') return tolerance;
  return (Math.abs(expected) * Number(RELATIVE_TOLERANCE.exec(tolerance)![1])) / 100;
}

export const CitesRecallSchema = z
  .strictObject({
    files: z
      .array(z.string().min(1))
      .min(1, { error: 'needs at least one file' })
      .superRefine((files, ctx) => {
        const seen = new Set<string>();
        files.forEach((f, i) => {
          if (seen.has(f)) ctx.addIssue({ code: 'custom', path: [i], message: `${JSON.stringify(f)} is listed twice` });
          seen.add(f);
        });
      })
      .describe('Files the answer should cite, each matched like a path of `cites` (a suffix of a cited path, whole segments).'),
    min: z
      .number()
      .gt(0, { error: 'must be more than 0 (a check that passes on nothing checks nothing)' })
      .max(1)
      .describe('Share of the files (above 0, at most 1) that must be cited for the check to pass.'),
  })
  .describe('Recall over a list of files: the answer must cite at least `min` of them (through links that resolve). Checked when citations are (see docs/grading.md).');
export type CitesRecall = z.output<typeof CitesRecallSchema>;

export const NumberCheckSchema = z
  .strictObject({
    expected: z.number().describe('The number the answer must state.'),
    tolerance: ToleranceSchema.default(0),
  })
  .describe('The answer must state a number within the tolerance of `expected`; how numbers are read: docs/generate.md#the-number-check.');
export type NumberCheck = z.output<typeof NumberCheckSchema>;

/** The checks added to every `expect` of a question or follow-up. */
export const generatedChecksShape = {
  citesRecall: CitesRecallSchema.optional(),
  number: NumberCheckSchema.optional(),
};

export const GENERATED_KINDS = ['definition', 'usage', 'count'] as const;
export type GeneratedKind = (typeof GENERATED_KINDS)[number];

export const ProvenanceSchema = z
  .strictObject({
    kind: z.enum(GENERATED_KINDS).describe('What was mined: where a symbol is defined, which files use it, how many files mention it.'),
    query: z.string().min(1).describe('The search whose results the expectations come from; `dsbench suite verify` runs it again.'),
    repository: z.string().min(1).describe('The repository the question is about.'),
    revision: z.string().describe('The commit the search saw ("" when the instance named none).'),
    symbol: z.string().min(1).describe('The symbol the question is about.'),
    match: z
      .strictObject({
        path: z.string().min(1).describe('The file that defines the symbol, inside the repository.'),
        line: z.number().int().min(1).describe('The 1-based line of the definition.'),
        kind: z.string().describe('The kind the instance gave (FUNCTION, CLASS, METHOD, ...).'),
        containerName: z.string().optional().describe('The class or type it belongs to, when it has one.'),
      })
      .optional()
      .describe('The symbol match that answers a definition question: its file, 1-based line and kind.'),
    generatedAt: z.string().describe('When the question was generated (ISO 8601).'),
    instance: z.string().describe('Where it was generated: the instance URL, or "emulator" for the embedded one.'),
  })
  .describe('Provenance of a generated question: written by `dsbench suite generate`, read by `dsbench suite verify`.');
export type Provenance = z.output<typeof ProvenanceSchema>;

export const SuiteProvenanceSchema = z
  .strictObject({
    by: z.string().describe('The dsbench version that generated the suite.'),
    instance: z.string().describe('The instance URL, or "emulator" for the embedded one.'),
    seed: z.union([z.number(), z.string()]).describe('The seed: the same seed on the same index gives the same suite.'),
    generatedAt: z.string().describe('When (ISO 8601).'),
    repositories: z.array(z.string()).describe('The repositories questions were mined from.'),
    kinds: z.array(z.enum(GENERATED_KINDS)).describe('The kinds of questions asked for.'),
  })
  .describe('Present when `dsbench suite generate` wrote the suite: from which instance, with which seed.');
export type SuiteProvenance = z.output<typeof SuiteProvenanceSchema>;
