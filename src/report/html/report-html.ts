import path from 'node:path';
import type Database from 'better-sqlite3';
import { gradingSummary, turnGradingLookup, type TurnGrading } from '../../store/grade-queries.js';
import { iterateQuestionExport, iterateSearchExport } from '../../store/queries.js';
import { checksOfTurn, verdictOf } from '../expectations.js';
import { collectHistory } from '../history.js';
import { textInline } from '../document.js';
import type { ReportData, ReportResult, RunSink, RunSinkOptions } from '../report-result.js';
import { reportWarnings } from '../report-warnings.js';
import { itemErrorsText } from '../tables.js';
import { formatThresholdValue, thresholdVerdict } from '../thresholds.js';
import { searchCount } from '../summary.js';
import { SEARCH_COLUMNS, TURN_COLUMNS, rowOf } from './columns.js';
import type { ReportPage, Row, TraceItem, TracePanel } from './browser/data.js';
import type { TracedItemRow } from '../../store/queries.js';
import { HtmlPageFile } from './page.js';

/** Answers embedded in a report page; past that the table still lists every question, without its text. */
export const MAX_EMBEDDED_ANSWERS = 2_000;
/** Characters kept of one embedded answer. */
export const MAX_ANSWER_CHARS = 20_000;
/** Runs of the suite in the trend chart. */
const TREND_RUNS = 20;
/** Turns of earlier runs summarized for the trend (about 3 s of CPU a 100,000): fewer runs when they hold more. */
const TREND_TURNS = 1_000_000;

export function clip(text: string | null, max = MAX_ANSWER_CHARS): string | null {
  return text === null || text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters in the CSV)`;
}

const failedReasons = (checks: ReadonlyArray<{ name: string; passed: boolean; reason: string }>): string | null =>
  checks.some((c) => !c.passed) ? checks.filter((c) => !c.passed).map((c) => `${c.name}: ${c.reason}`).join('; ') : null;

/**
 * Writes the HTML page of one run to `file`, from the same streamed queries as the CSV exports (call inside
 * the report's snapshot): its rows go to the file as they are read, so memory stays flat however large the run.
 */
export function writeReportHtml(db: Database.Database, data: ReportData, file: string): void {
  const runId = data.run.id;
  const page = new HtmlPageFile(file, `dsbench report: run ${runId}${data.run.label ? ` (${data.run.label})` : ''}`);
  try {
    // The page's data but its long lists, which follow as they are read.
    const head: Omit<ReportPage, 'turns' | 'gradings' | 'answersCapped' | 'searches'> = {
      kind: 'report',
      db: data.db,
      generatedAt: data.generatedAt,
      run: { id: data.run.id, label: data.run.label, suiteName: data.run.suiteName, status: data.run.status, startedAt: data.run.startedAt, endedAt: data.run.endedAt },
      targets: data.targets,
      inProgress: data.inProgress,
      // The report's warnings (in progress, a partial merge, impossible stats, conversations no item owns), as report.md words them.
      warnings: reportWarnings(data).flatMap((b) => (b.kind === 'callout' ? [textInline(b.text)] : [])),
      summary: data.summary
        .filter((s) => s.scope === 'target')
        .map((s) => ({ target: s.target, items: s.items, questions: s.questions, completed: s.itemsCompleted, errors: itemErrorsText(s), passRate: s.expectPassRate, serverP50: s.serverMs.p50, serverP90: s.serverMs.p90, tokens: s.tokens.mean, cachedTokens: s.cachedTokens.mean, credits: s.credits.sum })),
      tags: data.summary.filter((s) => s.scope === 'tag').map((s) => ({ target: s.target, tag: s.tag, questions: s.questions, credits: s.credits.sum, tokens: s.tokens.sum })),
      expectations: data.expectations,
      quality: data.quality,
      thresholds: data.thresholds.map((r) => [r.metric, r.expression.trim(), r.target ?? 'whole run', formatThresholdValue(r.metric, r.value), thresholdVerdict(r)]),
      grades: gradingSummary(db, runId),
      turnColumns: TURN_COLUMNS,
      searchColumns: SEARCH_COLUMNS,
      // The trend up to this run, its own summary reused; older runs are summarized within a budget of turns.
      ...(data.traces && { traces: tracePanel(data.traces) }),
      history: collectHistory(db, data.run.suiteName, TREND_RUNS, { through: runId, maxTurns: TREND_TURNS, known: { runId, rows: data.summary } }).rows,
    };
    page.json(`${JSON.stringify(head).slice(0, -1)},"turns":[`);
    // The judge's reasons and each checked citation, beside the answers that are embedded.
    const gradings: TurnGrading[] = [];
    const gradingOf = turnGradingLookup(db);
    let answers = 0;
    let turns = 0;
    for (const t of iterateQuestionExport(db, runId)) {
      const checks = checksOfTurn(t.expectations, t.turn, t.lastTurn);
      const item = t.turn === t.lastTurn ? verdictOf(t.expectations) : null;
      const answer = answers < MAX_EMBEDDED_ANSWERS ? clip(t.answer ?? '') : null;
      let grading: number | null = null;
      if (answer !== null) {
        answers++;
        const found = gradingOf(runId, t.itemKey, t.turn);
        if (found) grading = gradings.push(found) - 1;
      }
      const row = rowOf(TURN_COLUMNS, {
        target: t.target, id: t.suiteItemId, repeat: t.repeat, turn: t.turn, state: t.state, errorCode: t.errorCode ?? t.clientError, serverMs: t.serverMs,
        wallMs: t.wallMs === null ? null : Math.round(t.wallMs), tokens: t.totalTokens, credits: t.credits, verdict: verdictOf(checks), reasons: failedReasons(checks),
        itemVerdict: item, judgeScore: t.judgeScore, citationsValid: t.citationsValid, citationsInvalid: t.citationsInvalid, answer, grading,
        errorMessage: t.errorMessage, partial: t.partial,
      });
      page.json((turns++ === 0 ? '' : ',') + JSON.stringify(row satisfies Row));
    }
    page.json(`],"gradings":${JSON.stringify(gradings)},"answersCapped":${turns > answers ? answers : 0},"searches":[`);
    let searches = 0;
    for (const s of iterateSearchExport(db, runId)) {
      const row = rowOf(SEARCH_COLUMNS, {
        target: s.target, id: s.suiteItemId, repeat: s.repeat, verdict: s.verdict, count: searchCount(s), exhaustive: s.exhaustive, durationMs: s.durationMs,
        wallMs: Math.round(s.wallMs), checks: verdictOf(s.expectations), why: failedReasons(s.expectations), query: s.query,
      });
      page.json((searches++ === 0 ? '' : ',') + JSON.stringify(row satisfies Row));
    }
    page.json(']}');
    page.end();
  } catch (error) {
    page.abandon();
    throw error;
  }
}

const traceItem = (r: TracedItemRow): TraceItem => ({ target: r.target, item: r.suiteItemId, repeat: r.repeat, outcome: r.outcome, ms: r.ms, id: r.traceId, url: r.traceUrl });

function tracePanel(t: NonNullable<ReportData['traces']>): TracePanel {
  const f = t.fetched;
  return {
    traces: t.traces,
    items: t.items,
    slowest: t.slowest.map(traceItem),
    failed: t.failed.map(traceItem),
    ...(f && { fetched: { dir: f.dir, saved: f.saved, ...(f.stopped !== undefined && { stopped: f.stopped }), traces: f.traces.map((x) => ({ id: x.id, itemKey: x.itemKey, cut: x.cut, slowest: x.slowest })) } }),
  };
}

/** report.html, as a sink of the report: it reads the run in a pass of its own, as its page puts the summary before the rows. */
export class ReportHtml implements RunSink {
  readonly files: string[];
  private readonly db: Database.Database;

  constructor(o: RunSinkOptions) {
    this.db = o.db;
    this.files = [path.join(o.out, 'report.html')];
  }

  end(result: ReportResult): void {
    writeReportHtml(this.db, result.data, this.files[0]!);
  }
}
