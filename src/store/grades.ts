import type Database from 'better-sqlite3';
import { redact } from '../redact.js';
import { GRADING_EXPECTATIONS, type GradeStore, type ItemGrading, type JudgeCacheKey, type JudgeReply } from '../model/grading.js';

type Params = Record<string, string | number | null>;

/** Grades, citations and the judge cache in SQLite. */
export class SqliteGradeStore implements GradeStore {
  private readonly s;
  private readonly recordTx: (runId: number, key: string, grading: ItemGrading) => void;

  constructor(db: Database.Database) {
    const p = (sql: string) => db.prepare<Params>(sql);
    const names = GRADING_EXPECTATIONS.map((n) => `'${n}'`).join(', ');
    this.s = {
      selectCache: p(`SELECT content, prompt_tokens, completion_tokens FROM judge_cache
        WHERE model = @model AND prompt_hash = @promptHash AND inputs_hash = @inputsHash`),
      insertCache: p(`INSERT OR REPLACE INTO judge_cache (model, prompt_hash, inputs_hash, content, prompt_tokens, completion_tokens, created_at)
        VALUES (@model, @promptHash, @inputsHash, @content, @promptTokens, @completionTokens, @at)`),
      deleteGrades: p(`DELETE FROM grades WHERE run_id = @runId AND item_key = @key`),
      insertGrade: p(`INSERT INTO grades (run_id, item_key, turn, spec, status, score, judge_pass, min_score, passed, reasons_json, error,
          model, prompt_version, prompt_hash, inputs_hash, cached, prompt_tokens, completion_tokens, graded_at)
        VALUES (@runId, @key, @turn, @spec, @status, @score, @judgePass, @minScore, @passed, @reasonsJson, @error,
          @model, @promptVersion, @promptHash, @inputsHash, @cached, @promptTokens, @completionTokens, @gradedAt)`),
      deleteCitations: p(`DELETE FROM citations WHERE run_id = @runId AND item_key = @key`),
      insertCitation: p(`INSERT INTO citations (run_id, item_key, turn, position, origin, kind, repository, revision, path, start_line, end_line, link, status, reason, checked_at)
        VALUES (@runId, @key, @turn, @position, @origin, @kind, @repository, @revision, @path, @startLine, @endLine, @link, @status, @reason, @checkedAt)`),
      deleteExpectations: p(`DELETE FROM expectations WHERE run_id = @runId AND item_key = @key AND name IN (${names})`),
      nextPosition: p(`SELECT coalesce(max(position) + 1, 0) FROM expectations WHERE run_id = @runId AND item_key = @key`),
      insertExpectation: p(`INSERT INTO expectations (run_id, item_key, position, name, passed, reason, turn)
        VALUES (@runId, @key, @position, @name, @passed, @reason, @turn)`),
    };
    this.recordTx = db.transaction(this.write.bind(this)).immediate;
  }

  cachedJudgeReply(key: JudgeCacheKey): JudgeReply | undefined {
    const row = this.s.selectCache.get({ ...key }) as { content: string; prompt_tokens: number | null; completion_tokens: number | null } | undefined;
    if (!row) return undefined;
    return { content: row.content, promptTokens: row.prompt_tokens ?? undefined, completionTokens: row.completion_tokens ?? undefined };
  }

  cacheJudgeReply(key: JudgeCacheKey, reply: JudgeReply, at: string): void {
    this.s.insertCache.run({ ...key, content: reply.content, promptTokens: reply.promptTokens ?? null, completionTokens: reply.completionTokens ?? null, at });
  }

  recordGrading(runId: number, key: string, grading: ItemGrading): void {
    this.recordTx(runId, key, grading);
  }

  private write(runId: number, key: string, grading: ItemGrading): void {
    const { s } = this;
    s.deleteGrades.run({ runId, key });
    for (const g of grading.grades) {
      s.insertGrade.run({
        runId,
        key,
        turn: g.turn,
        spec: g.spec,
        status: g.status,
        score: g.score ?? null,
        judgePass: g.judgePass === undefined ? null : g.judgePass ? 1 : 0,
        minScore: g.minScore,
        passed: g.passed ? 1 : 0,
        reasonsJson: JSON.stringify(g.reasons.map((r) => redact(r))),
        error: g.error === undefined ? null : redact(g.error),
        model: g.model,
        promptVersion: g.promptVersion,
        promptHash: g.promptHash,
        inputsHash: g.inputsHash,
        cached: g.cached ? 1 : 0,
        promptTokens: g.promptTokens ?? null,
        completionTokens: g.completionTokens ?? null,
        gradedAt: g.gradedAt,
      });
    }
    s.deleteCitations.run({ runId, key });
    for (const { turn, citations, checkedAt } of grading.citations) {
      citations.forEach((c, position) => {
        s.insertCitation.run({
          runId,
          key,
          turn,
          position,
          origin: c.origin,
          kind: c.kind,
          repository: c.repository,
          revision: c.revision ?? null,
          path: c.path ?? null,
          startLine: c.startLine ?? null,
          endLine: c.endLine ?? null,
          link: redact(c.link),
          status: c.status,
          reason: redact(c.reason),
          checkedAt,
        });
      });
    }
    s.deleteExpectations.run({ runId, key });
    let position = s.nextPosition.pluck().get({ runId, key }) as number;
    for (const e of grading.expectations) {
      s.insertExpectation.run({ runId, key, position: position++, name: e.name, passed: e.passed ? 1 : 0, reason: redact(e.reason), turn: e.turn });
    }
  }
}
