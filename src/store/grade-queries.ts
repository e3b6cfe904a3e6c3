import type Database from 'better-sqlite3';

export interface GradingSummary {
  target: string;
  /** Grades recorded (rubrics and references), whatever their status. */
  grades: number;
  graded: number;
  unparseable: number;
  errors: number;
  passed: number;
  meanScore: number | undefined;
  citations: { valid: number; invalid: number; unchecked: number };
  /** valid / (valid + invalid); undefined when nothing was checked. */
  citationValidity: number | undefined;
  /** Tokens of the judge calls that were made (cache hits cost none), apart from the service's credits. */
  judgeTokens: number;
  cachedGrades: number;
}

/** Per target: grades and citation validity of a run, as recorded. */
export function gradingSummary(db: Database.Database, runId: number): GradingSummary[] {
  const grades = db
    .prepare(
      `SELECT i.target AS target, count(*) AS grades,
         sum(g.status = 'graded') AS graded, sum(g.status = 'unparseable') AS unparseable,
         sum(g.status IN ('error', 'no_answer')) AS errors, sum(g.passed) AS passed, avg(g.score) AS mean_score,
         sum(CASE WHEN g.cached = 0 THEN coalesce(g.prompt_tokens, 0) + coalesce(g.completion_tokens, 0) ELSE 0 END) AS judge_tokens,
         sum(g.cached) AS cached
       FROM grades g JOIN items i ON i.run_id = g.run_id AND i.key = g.item_key
       WHERE g.run_id = ? GROUP BY i.target`,
    )
    .all(runId) as Array<Record<string, number | string | null>>;
  const citations = db
    .prepare(
      `SELECT i.target AS target, sum(c.status = 'valid') AS valid, sum(c.status = 'invalid') AS invalid, sum(c.status = 'unchecked') AS unchecked
       FROM citations c JOIN items i ON i.run_id = c.run_id AND i.key = c.item_key
       WHERE c.run_id = ? AND c.kind <> 'commit' GROUP BY i.target`,
    )
    .all(runId) as Array<{ target: string; valid: number; invalid: number; unchecked: number }>;
  const targets = [...new Set([...grades.map((g) => String(g.target)), ...citations.map((c) => c.target)])].sort();
  return targets.map((target) => {
    const g = grades.find((r) => r.target === target);
    const c = citations.find((r) => r.target === target) ?? { valid: 0, invalid: 0, unchecked: 0 };
    const n = (v: number | string | null | undefined) => Number(v ?? 0);
    return {
      target,
      grades: n(g?.grades),
      graded: n(g?.graded),
      unparseable: n(g?.unparseable),
      errors: n(g?.errors),
      passed: n(g?.passed),
      meanScore: g?.mean_score === null || g?.mean_score === undefined ? undefined : Number(g.mean_score),
      citations: { valid: n(c.valid), invalid: n(c.invalid), unchecked: n(c.unchecked) },
      citationValidity: n(c.valid) + n(c.invalid) === 0 ? undefined : n(c.valid) / (n(c.valid) + n(c.invalid)),
      judgeTokens: n(g?.judge_tokens),
      cachedGrades: n(g?.cached),
    };
  });
}

/** Lines for a summary: per target, grades and citations in words; none when nothing was graded. */
export function formatGradingSummary(rows: readonly GradingSummary[]): string {
  if (rows.length === 0) return '';
  const pct = (x: number | undefined) => (x === undefined ? 'n/a' : `${Math.round(x * 100)}%`);
  const lines = rows.map((r) => {
    const grades =
      r.grades === 0
        ? 'no rubric graded'
        : `${r.graded}/${r.grades} graded, mean score ${r.meanScore === undefined ? 'n/a' : r.meanScore.toFixed(2)}, ${r.passed} passed` +
          (r.unparseable > 0 ? `, ${r.unparseable} unparseable verdicts` : '') +
          (r.errors > 0 ? `, ${r.errors} not graded` : '');
    const total = r.citations.valid + r.citations.invalid;
    const cites = total + r.citations.unchecked === 0 ? 'no citations checked' : `citations ${r.citations.valid}/${total} valid (${pct(r.citationValidity)})${r.citations.unchecked > 0 ? `, ${r.citations.unchecked} unchecked` : ''}`;
    return `  ${r.target}: ${grades}; ${cites}; judge ${r.judgeTokens} tokens${r.cachedGrades > 0 ? ` (${r.cachedGrades} from cache)` : ''}`;
  });
  return `\nGrades:\n${lines.join('\n')}\n`;
}

/** One turn's grades and checked citations, as a report shows them beside its answer. */
export interface TurnGrading {
  grades: Array<{ spec: string; status: string; score: number | null; minScore: number; passed: boolean; reasons: string[]; error: string | null }>;
  citations: Array<{ link: string; status: string; reason: string }>;
}

/** A lookup of TurnGrading by run, item and turn (prepared once); undefined for a turn neither graded nor cited. */
export function turnGradingLookup(db: Database.Database): (runId: number, key: string, turn: number) => TurnGrading | undefined {
  const grades = db.prepare(
    `SELECT spec, status, score, min_score AS minScore, passed, reasons_json AS reasons, error FROM grades
     WHERE run_id = ? AND item_key = ? AND turn = ? ORDER BY spec`,
  );
  const citations = db.prepare(`SELECT link, status, reason FROM citations WHERE run_id = ? AND item_key = ? AND turn = ? ORDER BY position`);
  return (runId, key, turn) => {
    const g = grades.all(runId, key, turn) as Array<Omit<TurnGrading['grades'][number], 'passed' | 'reasons'> & { passed: number; reasons: string }>;
    const c = citations.all(runId, key, turn) as TurnGrading['citations'];
    if (g.length === 0 && c.length === 0) return undefined;
    return { grades: g.map((r) => ({ ...r, passed: r.passed === 1, reasons: JSON.parse(r.reasons) as string[] })), citations: c };
  };
}

/** The judge's score of every graded turn of a run, with its target: what a threshold on judgeScore reads. */
export function judgeScores(db: Database.Database, runId: number): IterableIterator<{ target: string; score: number }> {
  return db
    .prepare(
      `SELECT i.target AS target, g.score AS score FROM grades g JOIN items i ON i.run_id = g.run_id AND i.key = g.item_key
       WHERE g.run_id = ? AND g.status = 'graded' AND g.score IS NOT NULL`,
    )
    .iterate(runId) as IterableIterator<{ target: string; score: number }>;
}
