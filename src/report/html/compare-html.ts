import path from 'node:path';
import type { ComparedQuestionRow } from '../../store/queries.js';
import type { ComparePair, CompareResult, CompareSink, CompareSinkOptions, PairwiseView } from '../compare/compare-result.js';
import { emulatedSearchNote, versionsLine } from '../compare/compare-document.js';
import { gateOutcome } from '../compare/verdict.js';
import { reasons } from '../expectations.js';
import type { ComparePage, EmbeddedAnswers, Row, SideGrade } from './browser/data.js';
import { htmlPage } from './page.js';
import { MAX_EMBEDDED_ANSWERS, clip } from './report-html.js';
import { writeWhole } from '../whole-file.js';

const PAIR_COLUMNS = [
  'kind', 'pairing', 'target', 'itemId', 'repeat', 'turn', 'stateBaseline', 'stateCandidate', 'stateChange',
  'latencyBaseline', 'latencyCandidate', 'creditsBaseline', 'creditsCandidate', 'answerSimilarity', 'sourcesJaccard',
  'expectBaseline', 'expectCandidate', 'expectChange', 'judgeBaseline', 'judgeCandidate', 'answer', 'traceBaseline', 'traceCandidate',
] as const;

const gradeOf = (r: ComparedQuestionRow | undefined): SideGrade | null =>
  r && (r.judgeScore !== null || r.citationsValid + r.citationsInvalid > 0) ? { score: r.judgeScore, valid: r.citationsValid, invalid: r.citationsInvalid } : null;

const round = (v: number | null): number | null => (v === null ? null : Math.round(v * 1000) / 1000);

/**
 * Gathers the comparison page while compare.csv streams: every pair as a compact row, and both answers of
 * at most MAX_EMBEDDED_ANSWERS question pairs (pairs that changed take the places first, then the rest in order).
 */
export class CompareHtml implements CompareSink {
  readonly files: string[];
  private readonly pairs: Row[] = [];
  private readonly answers: EmbeddedAnswers[] = [];
  /** Places kept for changed pairs that come late in key order. */
  private readonly reserve = Math.floor(MAX_EMBEDDED_ANSWERS / 2);
  private unchangedEmbedded = 0;
  /** When the page was first written; a rewrite with the judge's section keeps it. */
  private generatedAt = '';

  constructor(o: CompareSinkOptions) {
    this.files = [path.join(o.out, 'compare.html')];
  }

  row({ pair: p, row }: ComparePair): void {
    let answer: number | null = null;
    if (row.kind === 'question' && this.answers.length < MAX_EMBEDDED_ANSWERS) {
      const changed = row.pairing !== 'paired' || row.stateChange !== 'same' || (row.expectChange !== null && row.expectChange !== 'same') || (row.answerSimilarity ?? 1) < 0.999;
      if (changed || this.unchangedEmbedded < MAX_EMBEDDED_ANSWERS - this.reserve) {
        if (!changed) this.unchangedEmbedded++;
        const b = p.baseline as ComparedQuestionRow | undefined;
        const c = p.candidate as ComparedQuestionRow | undefined;
        this.answers.push({
          question: (c ?? b)?.text ?? null,
          baseline: b ? clip(b.answer) : null,
          candidate: c ? clip(c.answer) : null,
          sourcesBaseline: b?.sourceLinks ?? [],
          sourcesCandidate: c?.sourceLinks ?? [],
          reasonsBaseline: b && b.expectations.some((e) => !e.passed) ? reasons(b.expectations.filter((e) => !e.passed)) : null,
          reasonsCandidate: c && c.expectations.some((e) => !e.passed) ? reasons(c.expectations.filter((e) => !e.passed)) : null,
          gradeBaseline: gradeOf(b),
          gradeCandidate: gradeOf(c),
        });
        answer = this.answers.length;
      }
    }
    const target = row.targetBaseline === row.targetCandidate || row.targetCandidate === null ? row.targetBaseline : row.targetBaseline === null ? row.targetCandidate : `${row.targetBaseline} → ${row.targetCandidate}`;
    this.pairs.push([
      row.kind, row.pairing, target, row.itemId, row.repeat, row.turn, row.stateBaseline, row.stateCandidate, row.stateChange,
      row.latencyBaseline === null ? null : Math.round(row.latencyBaseline), row.latencyCandidate === null ? null : Math.round(row.latencyCandidate),
      row.creditsBaseline, row.creditsCandidate, round(row.answerSimilarity), round(row.sourcesJaccard),
      row.expectBaseline, row.expectCandidate, row.expectChange,
      row.kind === 'question' ? ((p.baseline as ComparedQuestionRow | undefined)?.judgeScore ?? null) : null,
      row.kind === 'question' ? ((p.candidate as ComparedQuestionRow | undefined)?.judgeScore ?? null) : null,
      answer,
      row.traceUrlBaseline,
      row.traceUrlCandidate,
    ]);
  }

  end(result: CompareResult): void {
    this.generatedAt = new Date().toISOString();
    writeWhole(this.files[0]!, this.page(result, this.generatedAt));
  }

  pairwise(result: CompareResult, pairwise: PairwiseView): void {
    writeWhole(this.files[0]!, this.page(result, this.generatedAt, pairwise));
  }

  private page(result: CompareResult, generatedAt: string, pairwise?: PairwiseView): string {
    const side = (s: CompareResult['baseline']) => ({
      db: s.db,
      target: s.target,
      run: { id: s.run.id, label: s.run.label, suiteName: s.run.suiteName, status: s.run.status, startedAt: s.run.startedAt },
    });
    const questionPairs = this.pairs.filter((r) => r[0] === 'question').length;
    const data: ComparePage = {
      kind: 'compare',
      generatedAt,
      versions: versionsLine(result),
      edited: {
        count: result.summary.edited.count,
        inGates: result.summary.edited.inGates,
        ids: result.summary.edited.rows.map((r) => `${r.kind === 'search' ? 'search ' : ''}${r.targetBaseline ?? ''}/${r.itemId}#${r.repeat}`),
      },
      baseline: side(result.baseline),
      candidate: side(result.candidate),
      failed: result.summary.failed,
      verdictLine: result.verdictLine,
      gates: result.summary.gates.map((g) => ({ ...g, outcome: gateOutcome(g) })),
      metrics: result.summary.metrics,
      ...(emulatedSearchNote(result) !== undefined && { metricsNote: emulatedSearchNote(result) }),
      outcomes: result.summary.outcomes,
      stateChanges: result.summary.stateChanges,
      newFailures: result.summary.newFailures.count,
      fixedFailures: result.summary.fixedFailures.count,
      bootstrap: result.bootstrap,
      pairColumns: PAIR_COLUMNS,
      pairs: this.pairs,
      answers: this.answers,
      answersCapped: questionPairs > this.answers.length ? this.answers.length : 0,
      pairwise: pairwise ?? null,
    };
    return htmlPage(`dsbench compare: run ${result.baseline.run.id} vs run ${result.candidate.run.id}`, data);
  }
}
