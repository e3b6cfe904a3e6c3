import { z } from 'zod';

export const GradeVerdictSchema = z.object({
  score: z.number().min(0).max(1),
  pass: z.boolean(),
  reasons: z.array(z.string()).max(20),
});
export type GradeVerdict = z.output<typeof GradeVerdictSchema>;

export const PairwiseVerdictSchema = z.object({
  winner: z.enum(['A', 'B', 'tie']),
  reasons: z.array(z.string()).max(20),
});
export type PairwiseVerdict = z.output<typeof PairwiseVerdictSchema>;

export type Parsed<T> = { ok: true; verdict: T } | { ok: false; why: string };

/**
 * Reads a judge's reply strictly: one JSON object (alone, or alone inside one ```json fence) of the
 * verdict's shape. Prose, a refusal, two objects or a score out of range is not a verdict.
 */
export function parseVerdict<T>(schema: z.ZodType<T>, content: string): Parsed<T> {
  const text = content.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text);
  const body = (fenced?.[1] ?? text).trim();
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, why: `the judge replied with something other than a JSON verdict: ${quote(text)}` };
  }
  const result = schema.safeParse(json);
  if (result.success) return { ok: true, verdict: result.data };
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return { ok: false, why: `the judge's verdict is malformed (${where}${issue?.message ?? 'wrong shape'}): ${quote(text)}` };
}

function quote(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}
