import type Database from 'better-sqlite3';
import { z } from 'zod';

// A confirmation (`dsbench confirm`) is a run of its own whose `confirm_of` is the run it confirms: its items
// are the re-asked questions. `confirm_json` keeps what it was asked for (the baseline, the questions and
// each one's repeats), so that a confirmation interrupted and started again resumes it rather than asking anew,
// and, once made, the decision.

export const ConfirmRecord = z
  .object({
    /** The baseline run; for a pooled baseline (`window:K`) the newest run pooled, and K. */
    baseline: z.object({ db: z.string(), runId: z.number().int(), window: z.number().int().positive().optional() }),
    /** `target\u0000kind\u0000id` of each re-asked question or search, the worst first. */
    questions: z.array(z.string()),
    /** The most repeats of any re-asked question: the confirmation run's repeats. */
    repeats: z.number().int().nonnegative(),
    /** Each question's repeats, in the order of `questions`. Absent in a record written when every question was asked `repeats` times, which resumes as it was. */
    questionRepeats: z.array(z.number().int().positive()).optional(),
    budget: z.number().int().nonnegative(),
    decision: z.object({ verdict: z.string(), line: z.string(), decidedAt: z.string() }).optional(),
  })
  .refine((r) => r.questionRepeats === undefined || (r.questionRepeats.length === r.questions.length && r.questionRepeats.every((n) => n <= r.repeats)), {
    message: 'questionRepeats must give each question its repeats, none above repeats',
  });
export type ConfirmRecord = z.infer<typeof ConfirmRecord>;

/** Each re-asked question's repeats, in the order of `questions`. */
export const plannedRepeats = (r: ConfirmRecord): number[] => r.questionRepeats ?? r.questions.map(() => r.repeats);

export interface Confirmation {
  runId: number;
  status: string;
  record: ConfirmRecord | null;
}

/** The confirmations of a run, newest first. */
export function confirmationsOf(db: Database.Database, runId: number): Confirmation[] {
  const rows = db.prepare('SELECT id, status, confirm_json AS json FROM runs WHERE confirm_of = ? ORDER BY id DESC').all(runId) as Array<{ id: number; status: string; json: string | null }>;
  return rows.map((r) => ({ runId: r.id, status: r.status, record: r.json === null ? null : ConfirmRecord.parse(JSON.parse(r.json)) }));
}

/** Writes what a confirmation run was asked for, or its decision: only ever on the confirmation's own row. */
export function saveConfirmation(db: Database.Database, confirmRunId: number, record: ConfirmRecord): void {
  const changed = db.prepare('UPDATE runs SET confirm_json = ? WHERE id = ? AND confirm_of IS NOT NULL').run(JSON.stringify(ConfirmRecord.parse(record)), confirmRunId).changes;
  if (changed !== 1) throw new Error(`run ${confirmRunId} is not a confirmation`);
}

/** Items and credits of a run's confirmations (or of one of them), for the views that count them apart. */
export function confirmationTotals(db: Database.Database, runId: number, only?: number): { runs: number[]; items: number; credits: number | null } {
  const which = 'c.confirm_of = @runId AND (@only IS NULL OR c.id = @only)';
  const row = db
    .prepare(
      `SELECT (SELECT json_group_array(c.id) FROM runs c WHERE ${which}) AS runs,
        (SELECT count(*) FROM items i JOIN runs c ON i.run_id = c.id WHERE ${which}) AS items,
        (SELECT sum(t.credits) FROM turns t JOIN runs c ON t.run_id = c.id WHERE ${which}) AS credits`,
    )
    .get({ runId, only: only ?? null }) as { runs: string; items: number; credits: number | null };
  return { runs: JSON.parse(row.runs) as number[], items: row.items, credits: row.credits };
}
