import type { RepositoryLink } from '../answer-links.js';

// The grader records through this interface and never speaks SQL; src/store/grades.ts implements it.
// Each call is one short transaction, committed before it returns.

/**
 * What a turn cites: a file (optionally a line range), a folder or a whole repository, each checked on
 * the instance; or a commit, recorded but not a file citation and not checked.
 */
export interface Citation extends RepositoryLink {
  /** Where it was found: a link in the answer's text, or one of the turn's sources. */
  origin: 'answer' | 'source';
}

export type GradeStatus = 'graded' | 'unparseable' | 'error' | 'no_answer';

export interface GradeRecord {
  turn: number;
  /** Whose rubric: the question's own expect (checked on the last turn asked) or the follow-up's. */
  spec: 'question' | 'followup';
  status: GradeStatus;
  score?: number | undefined;
  /** The judge's own pass; the gate is `passed`, from minScore. */
  judgePass?: boolean | undefined;
  minScore: number;
  passed: boolean;
  reasons: string[];
  error?: string | undefined;
  model: string;
  promptVersion: string;
  promptHash: string;
  inputsHash: string;
  cached: boolean;
  promptTokens?: number | undefined;
  completionTokens?: number | undefined;
  gradedAt: string;
}

export type CitationStatus = 'valid' | 'invalid' | 'unchecked';

export interface CheckedCitation extends Citation {
  status: CitationStatus;
  reason: string;
}

export interface JudgeCacheKey {
  model: string;
  promptHash: string;
  inputsHash: string;
}

export interface JudgeReply {
  content: string;
  promptTokens?: number | undefined;
  completionTokens?: number | undefined;
}

export interface GradeStore {
  cachedJudgeReply(key: JudgeCacheKey): JudgeReply | undefined;
  cacheJudgeReply(key: JudgeCacheKey, reply: JudgeReply, at: string): void;
  /** Replaces the turn's grades, its citations and the item's grading expectations, in one transaction. */
  recordGrading(runId: number, key: string, grading: ItemGrading): void;
}

export interface GradingExpectation {
  name: string;
  passed: boolean;
  reason: string;
  turn: number;
}

export interface ItemGrading {
  grades: GradeRecord[];
  /** Per checked turn, its citations (possibly none). */
  citations: Array<{ turn: number; citations: CheckedCitation[]; checkedAt: string }>;
  expectations: GradingExpectation[];
}

/** Names of the expectations grading writes; the runner's own never use them. */
export const GRADING_EXPECTATIONS = ['minScore', 'minCitationValidity', 'cites', 'citesRecall'] as const;
