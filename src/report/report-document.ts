import type { Block, Inline } from './document.js';
import { qualityBlocks } from './quality-document.js';
import { traceBlocks } from './trace-document.js';
import { WARNING_SECTIONS } from './report-warnings.js';
import type { ReportData } from './report-result.js';
import { productVersionText } from '../store/queries.js';
import { formatThresholdValue, thresholdVerdict } from './thresholds.js';
import { itemErrorsText, capped, fmtCredits, fmtInt, fmtNum, fmtPct, fmtSeconds, triple } from './tables.js';

const MAX_LISTED = 20;
/** Lines of the per-question table: a job summary must stay small (GitHub takes 1 MiB). */
const MAX_PER_QUESTION = 200;

/** A part of the report, from the run's data alone. */
export type Section = (data: ReportData) => Block[];

/** The report's sections by name, in its order: report.md renders them all, the viewer picks some by name. */
export const REPORT_SECTIONS = {
  head: headBlocks,
  warnings: (data) => WARNING_SECTIONS.flatMap((section) => section(data)),
  questions: questionBlocks,
  errors: errorBlocks,
  traces: traceBlocks,
  thresholds: thresholdBlocks,
  expectations: expectationBlocks,
  quality: (data) => qualityBlocks(data.quality),
  perQuestion: perQuestionBlocks,
  tags: tagBlocks,
  searches: searchBlocks,
  costs: costBlocks,
} as const satisfies Record<string, Section>;

const SECTIONS: readonly Section[] = Object.values(REPORT_SECTIONS);

/** The human summary of one run: status, questions by target, errors, expectations, tags, searches, costs. */
export function reportDocument(data: ReportData, files: readonly string[]): Block[] {
  const blocks = SECTIONS.flatMap((section) => section(data));
  if (files.length > 0) {
    blocks.push({ kind: 'heading', level: 3, text: ['Files'] });
    blocks.push({ kind: 'list', items: files.map((f): Inline[] => [{ code: f }]) });
  }
  return blocks;
}

/** The run: its name, status, counts and targets. */
function headBlocks(data: ReportData): Block[] {
  const { run } = data;
  const blocks: Block[] = [];
  blocks.push({
    kind: 'heading',
    level: 1,
    text: [`dsbench report: run ${run.id}`, ...(run.label ? [' ', { code: run.label }] : []), ', suite ', { code: run.suiteName }],
  });
  blocks.push({
    kind: 'para',
    text: [
      'Status ',
      { strong: run.status },
      `, started ${run.startedAt}`,
      run.endedAt ? `, ended ${run.endedAt}` : '',
      `; dsbench ${run.dsbenchVersion}; items: ${fmtInt(data.counts.items)}, questions asked: ${fmtInt(data.counts.turns)}, searches: ${fmtInt(data.counts.searches)}; database `,
      { code: data.db },
      '.',
    ],
  });
  if (data.targets.length > 0) {
    blocks.push({
      kind: 'list',
      items: data.targets.map((t): Inline[] => [
        { code: t.name },
        `: ${t.url} (${t.api} API${t.servedByEmulator ? ', emulated' : ''}), product version ${productVersionText({ version: t.productVersion, onResume: t.productVersionOnResume })}`,
      ]),
    });
  }
  return blocks;
}

/** Questions by target. */
function questionBlocks(data: ReportData): Block[] {
  const blocks: Block[] = [];
  if (data.counts.items === 0) blocks.push({ kind: 'para', text: ['The run has no items: nothing to report.'] });

  const targets = data.summary.filter((s) => s.scope === 'target' && s.items + s.questions > 0);
  if (targets.length > 0) {
    blocks.push({ kind: 'heading', level: 2, text: ['Questions'] });
    blocks.push({
      kind: 'table',
      table: {
        headers: ['target', 'items', 'completed', 'errors', 'turns asked', 'turns in progress', 'pass rate', 'wall p50 / p90 / p99', 'server p50 / p90 / p99', 'tokens mean', 'cached tokens mean', 'credits', 'credits mean'],
        align: ['left', ...Array<'right'>(12).fill('right')],
        rows: targets.map((s) => [
          s.target,
          `${fmtInt(s.done)}/${fmtInt(s.items)}`,
          fmtInt(s.itemsCompleted),
          itemErrorsText(s),
          fmtInt(s.questions),
          fmtInt(s.inProgress),
          fmtPct(s.expectPassRate),
          triple([s.wallMs.p50, s.wallMs.p90, s.wallMs.p99], fmtSeconds),
          triple([s.serverMs.p50, s.serverMs.p90, s.serverMs.p99], fmtSeconds),
          fmtInt(s.tokens.mean),
          fmtInt(s.cachedTokens.mean),
          fmtCredits(s.credits.sum),
          fmtNum(s.credits.mean, 2),
        ]),
      },
    });
  }

  return blocks;
}

/** Errors by target, kind and code. */
function errorBlocks(data: ReportData): Block[] {
  const blocks: Block[] = [];
  if (data.errors.length > 0) {
    blocks.push({ kind: 'heading', level: 2, text: ['Errors'] });
    const { shown, more } = capped(data.errors, MAX_LISTED);
    blocks.push({
      kind: 'table',
      table: {
        headers: ['target', 'kind', 'state', 'code', 'raw', 'count', 'example'],
        align: ['left', 'left', 'left', 'left', 'left', 'right', 'left'],
        rows: shown.map((e) => [e.target, e.kind, e.state, e.errorCode ?? '', e.rawCode ?? '', fmtInt(e.count), e.example ?? '']),
      },
    });
    if (more > 0) blocks.push({ kind: 'para', text: [`… and ${more} more kinds of error (see questions.csv and searches.csv).`] });
  }
  const billed = data.summary.filter((s) => s.scope === 'target' && s.billedFailures.turns > 0);
  if (billed.length > 0) {
    // The legacy API bills a failed question for the work done before it failed: kept apart from what answers cost.
    const text = billed.map((s) => `${s.target}: ${fmtInt(s.billedFailures.turns)} failed ${s.billedFailures.turns === 1 ? 'turn' : 'turns'} billed ${fmtCredits(s.billedFailures.credits)} credits`).join('; ');
    blocks.push({ kind: 'para', text: [{ strong: 'Billed failures' }, ` (credits of turns that ended in an error): ${text}.`] });
  }

  return blocks;
}

/** Checks: by name, the failures, recall and numbers. */
function expectationBlocks(data: ReportData): Block[] {
  const blocks: Block[] = [];
  const ex = data.expectations;
  if (ex.total > 0) {
    blocks.push({ kind: 'heading', level: 2, text: ['Expectations'] });
    blocks.push({
      kind: 'para',
      text: [`${fmtInt(ex.passedItems)} of ${fmtInt(ex.items)} checked items passed every check (`, { strong: fmtPct(ex.items === 0 ? null : ex.passedItems / ex.items) }, `); ${fmtInt(ex.failed)} of ${fmtInt(ex.total)} checks failed.`],
    });
    blocks.push({
      kind: 'table',
      table: {
        headers: ['check', 'checked', 'passed', 'failed'],
        align: ['left', 'right', 'right', 'right'],
        rows: ex.byName.map((n) => [n.name, fmtInt(n.total), fmtInt(n.passed), fmtInt(n.failed)]),
      },
    });
    if (ex.failures.length > 0) {
      const { shown, more } = capped(ex.failures, MAX_LISTED, ex.failed);
      blocks.push({
        kind: 'list',
        items: shown.map((f): Inline[] => [
          { code: `${f.target}/${f.suiteItemId}#${f.repeat}${f.turn === null ? '' : ` turn ${f.turn}`}` },
          ` ${f.name}: ${f.reason}`,
        ]),
      });
      if (more > 0) blocks.push({ kind: 'para', text: [`… and ${fmtInt(more)} more failed checks (expect_reasons in questions.csv and searches.csv).`] });
    }
    if (ex.measured.length > 0) {
      // Recall over files and numbers stated: what was found and what was expected, passed or not.
      const { shown, more } = capped(ex.measured, MAX_LISTED, ex.byName.filter((n) => n.name === 'citesRecall' || n.name === 'number').reduce((sum, n) => sum + n.total, 0));
      blocks.push({ kind: 'heading', level: 3, text: ['Recall and numbers'] });
      blocks.push({
        kind: 'table',
        table: {
          headers: ['item', 'check', 'result', 'found and expected'],
          align: ['left', 'left', 'left', 'left'],
          rows: shown.map((m) => [`${m.target}/${m.suiteItemId}#${m.repeat}`, m.name, m.passed ? 'pass' : 'fail', m.reason]),
        },
      });
      if (more > 0) blocks.push({ kind: 'para', text: [`… and ${fmtInt(more)} more (expect_reasons in questions.csv).`] });
    }
  }

  return blocks;
}

/** Per question (Markdown only). */
function perQuestionBlocks(data: ReportData): Block[] {
  const blocks: Block[] = [];
  if (data.perQuestion && data.perQuestion.length > 0) {
    const { shown, more } = capped(data.perQuestion, MAX_PER_QUESTION);
    blocks.push({ kind: 'heading', level: 2, text: ['Per question'], markdownOnly: true });
    blocks.push({
      kind: 'table',
      markdownOnly: true,
      table: {
        headers: ['target', 'question', 'items', 'items passed checks', 'items failed checks', 'turns asked', 'completed', 'errors', 'server p50', 'credits'],
        align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
        rows: shown.map((q) => [q.target, q.id, fmtInt(q.items), fmtInt(q.passed), fmtInt(q.failed), fmtInt(q.asked), fmtInt(q.completed), itemErrorsText({ itemErrors: q.errors, itemExpectedErrors: q.expectedErrors }), fmtSeconds(q.serverMsP50), fmtNum(q.credits, 2)]),
      },
    });
    if (more > 0) blocks.push({ kind: 'para', markdownOnly: true, text: [`… and ${fmtInt(more)} more questions (failing ones first above; every turn in questions.csv).`] });
  }

  return blocks;
}

/** Questions by tag. */
function tagBlocks(data: ReportData): Block[] {
  const blocks: Block[] = [];
  const tags = data.summary.filter((s) => s.scope === 'tag');
  if (tags.length > 0) {
    blocks.push({ kind: 'heading', level: 2, text: ['By tag'] });
    blocks.push({
      kind: 'table',
      table: {
        headers: ['target', 'tag', 'items', 'completed', 'errors', 'turns asked', 'pass rate', 'server p50 / p90', 'credits', 'credits mean'],
        align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
        rows: tags.map((s) => [
          s.target,
          s.tag,
          fmtInt(s.items),
          fmtInt(s.itemsCompleted),
          itemErrorsText(s),
          fmtInt(s.questions),
          fmtPct(s.expectPassRate),
          triple([s.serverMs.p50, s.serverMs.p90], fmtSeconds),
          fmtCredits(s.credits.sum),
          fmtNum(s.credits.mean, 2),
        ]),
      },
    });
  }

  return blocks;
}

/** Searches by target. */
function searchBlocks(data: ReportData): Block[] {
  const blocks: Block[] = [];
  const searches = data.searchSummary.filter((s) => s.scope === 'target' && s.items + s.searches > 0);
  if (searches.length > 0) {
    blocks.push({ kind: 'heading', level: 2, text: ['Searches'] });
    blocks.push({
      kind: 'table',
      table: {
        headers: ['target', 'items', 'complete', 'limit hit', 'truncated', 'error', 'HTTP error', 'exhaustive', 'matches mean', 'server p50 / p90', 'wall p50 / p90', 'first match p50', 'pass rate'],
        align: ['left', ...Array<'right'>(12).fill('right')],
        rows: searches.map((s) => [
          s.target,
          `${fmtInt(s.done)}/${fmtInt(s.items)}`,
          fmtInt(s.verdicts.complete),
          fmtInt(s.verdicts.limit_hit),
          fmtInt(s.verdicts.truncated),
          fmtInt(s.verdicts.error),
          fmtInt(s.verdicts.http_error),
          fmtInt(s.exhaustive),
          fmtNum(s.matches.mean, 1),
          triple([s.durationMs.p50, s.durationMs.p90], fmtSeconds),
          triple([s.wallMs.p50, s.wallMs.p90], fmtSeconds),
          fmtSeconds(s.firstMatchMs.p50),
          fmtPct(s.expectPassRate),
        ]),
      },
    });
  }

  return blocks;
}

/** Credits and quota by target. */
function costBlocks(data: ReportData): Block[] {
  const blocks: Block[] = [];
  const projections = data.costs.filter((c) => c.section === 'projection');
  if (projections.length > 0 && data.summary.some((s) => s.scope === 'target' && s.items + s.questions > 0)) {
    blocks.push({ kind: 'heading', level: 2, text: ['Costs and quota'] });
    blocks.push({
      kind: 'table',
      table: {
        headers: ['target', 'credits', 'per 1,000 questions', 'per suite run', 'quota used / limit', 'runs left', 'resets in'],
        align: ['left', 'right', 'right', 'right', 'right', 'right', 'right'],
        rows: projections.map((p) => {
          const target = data.costs.find((c) => c.section === 'target' && c.target === p.target);
          const quota =
            p.quotaLimit === undefined || p.quotaLimit === null ? '–' : p.quotaLimit < 0 ? `${fmtNum(p.totalQuota, 2)} / unlimited` : `${fmtNum(p.totalQuota, 2)} / ${fmtNum(p.quotaLimit, 2)}`;
          return [
            p.target,
            fmtCredits(p.creditsSum),
            fmtNum(target?.creditsPer1000Questions, 1),
            fmtNum(p.creditsPerSuiteRun, 2),
            quota,
            p.quotaLimit !== undefined && p.quotaLimit !== null && p.quotaLimit < 0 ? 'unlimited' : fmtInt(p.runsLeft),
            p.timeToReset ?? '–',
          ];
        }),
      },
    });
    const notes = projections.filter((p) => p.note).map((p): Inline[] => [{ code: p.target }, `: ${p.note}. Cost per suite run: ${p.suiteRunBasis}.`]);
    if (notes.length > 0) blocks.push({ kind: 'list', items: notes });
  }

  return blocks;
}

/** The suite's thresholds: one row per threshold and scope, failed ones marked. */
function thresholdBlocks(data: ReportData): Block[] {
  const results = data.thresholds;
  if (results.length === 0) return [];
  const failed = results.filter((r) => !r.passed).length;
  return [
    { kind: 'heading', level: 2, text: ['Thresholds'] },
    {
      kind: 'para',
      text: [`${fmtInt(results.length - failed)} of ${fmtInt(results.length)} thresholds passed`, ...(failed > 0 ? [', ', { strong: `${fmtInt(failed)} failed` }, ' (dsbench run exits with code 9)'] : []), '.'],
    },
    {
      kind: 'table',
      table: {
        headers: ['metric', 'threshold', 'scope', 'value', 'result'],
        align: ['left', 'left', 'left', 'right', 'left'],
        rows: results.map((r) => [r.metric, r.expression.trim(), r.target ?? 'whole run', r.value === null ? '–' : formatThresholdValue(r.metric, r.value), thresholdVerdict(r)]),
      },
    },
  ];
}

