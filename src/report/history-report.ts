import { mkdirSync } from 'node:fs';
import { HISTORY_SCHEMA_VERSION } from './output-schemas.js';
import { writeWhole } from './whole-file.js';
import path from 'node:path';
import { NothingToCompareError, UsageError } from '../errors/errors.js';
import { findRun } from '../store/queries.js';
import { writeCsv } from './csv.js';
import { type Block, renderMarkdown, renderText } from './document.js';
import { type HistoryRow, HISTORY_COLUMNS, collectHistory } from './history.js';
import { inSnapshot, openResults, outputDir } from './open.js';
import { type QuestionGrid, QuestionGridReader, cellText, gridMarks } from './question-grid.js';
import type { ReportFormat } from './report-result.js';
import { historyHtml } from './html/history-html.js';
import { changeBlocks } from './change-blocks.js';
import { type Detection, detectChanges } from './change-detection.js';
import { SeriesReader, historyNights } from './history-series.js';
import { fmtInt, fmtNum, fmtPct, fmtSeconds, itemErrorsText, safeJson } from './tables.js';
import type { RunHead } from '../store/queries.js';
import { removeStalePartials } from './whole-file.js';

export interface HistoryOptions {
  db: string;
  /** Runs to include, newest N. */
  limit: number;
  /** Suite name; default: the suite of the newest run. */
  suite?: string | undefined;
  out?: string | undefined;
  formats: ReadonlySet<ReportFormat>;
  bom?: boolean | undefined;
  /** Look for change points in each metric's nightly series (`--detect`); per question too with `questions`. */
  detect?: { questions: boolean; seed: number } | undefined;
  /** Columns the terminal summary (`text`) is fitted to; default DEFAULT_TEXT_WIDTH. */
  textWidth?: number | undefined;
}

export interface HistoryResult {
  suite: string;
  rows: HistoryRow[];
  /** Runs that asked nothing, left out of the trend. */
  nothingAsked: RunHead[];
  /** With `detect`: the change points found. */
  detection?: Detection | undefined;
  out: string;
  files: string[];
  /** Rendered on first read. */
  markdown: string;
  text: string;
}

/** A folder name from a suite name: anything but letters, digits, `.`, `_`, `-` becomes `_`. */
export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_') || '_';
}

export async function writeHistory(options: HistoryOptions): Promise<HistoryResult> {
  if (!(Number.isInteger(options.limit) && options.limit > 0)) throw new UsageError('--history must be a positive whole number of runs');
  const store = openResults(options.db);
  try {
    const suite = options.suite ?? findRun(store.db, 'latest')?.suiteName;
    if (suite === undefined) throw new NothingToCompareError(`no runs in ${options.db} yet, so no history.`);
    const { rows, runs, nothingAsked, grid, detection } = await inSnapshot(store.db, async () => {
      // One pass over the runs makes their summaries, the question grid and the series together.
      const grid = new QuestionGridReader();
      const detect = options.detect;
      const series = detect ? new SeriesReader(detect) : undefined;
      const history = collectHistory(store.db, suite, options.limit, { readers: series ? [grid, series] : [grid] });
      const nights = detect ? historyNights(store.db, history.runs) : [];
      return {
        ...history,
        grid: grid.grid(history.runs),
        detection: detect && series ? detectChanges(nights, series.series(nights.length), detect.seed) : undefined,
      };
    });
    if (runs.length === 0 && nothingAsked.length === 0) throw new NothingToCompareError(`no runs of suite "${suite}" in ${options.db}; dsbench runs --db ${options.db} lists the runs and their suites.`);
    const out = options.out ?? outputDir(options.db, `history-${safeName(suite)}`);
    mkdirSync(out, { recursive: true });
    removeStalePartials(out);
    const files: string[] = [];
    if (options.formats.has('csv')) {
      const file = path.join(out, 'history.csv');
      await writeCsv(file, HISTORY_COLUMNS, rows, { bom: options.bom === true });
      files.push(file);
    }
    const mdFile = options.formats.has('md') ? path.join(out, 'history.md') : undefined;
    const jsonFile = options.formats.has('json') ? path.join(out, 'history.json') : undefined;
    const htmlFile = options.formats.has('html') ? path.join(out, 'history.html') : undefined;
    if (mdFile) files.push(mdFile);
    if (jsonFile) files.push(jsonFile);
    if (htmlFile) files.push(htmlFile);
    const blocks = [...historyDocument(suite, options.db, rows, grid, files, detection), ...nothingAskedBlocks(nothingAsked)];
    // Rendered when asked for: the default run prints the text and writes neither (a 90-night grid is large).
    let markdown: string | undefined;
    let text: string | undefined;
    if (mdFile) writeWhole(mdFile, (markdown = renderMarkdown(blocks)));
    if (jsonFile) writeWhole(jsonFile, safeJson({ schemaVersion: HISTORY_SCHEMA_VERSION, db: options.db, suite, rows, nothingAsked, questions: grid, ...(detection && { changePoints: detection }), files }));
    if (htmlFile) writeWhole(htmlFile, historyHtml(options.db, suite, rows, nothingAsked, new Date().toISOString(), grid, detection));
    return {
      suite, rows, nothingAsked, detection, out, files,
      get markdown() {
        return (markdown ??= renderMarkdown(blocks));
      },
      get text() {
        return (text ??= renderText(blocks, options.textWidth));
      },
    };
  } finally {
    store.close();
  }
}

/** Runs that asked nothing, apart from the trend: they are not a clean night, nor any night. */
function nothingAskedBlocks(runs: readonly RunHead[]): Block[] {
  if (runs.length === 0) return [];
  return [
    {
      kind: 'para',
      text: [
        `Left out of the trend, ${runs.length} run${runs.length === 1 ? '' : 's'} that asked nothing (every item skipped before it was sent, e.g. a refused token): ` +
          runs.map((r) => `${r.id}${r.label ? ` (${r.label})` : ''} ${r.startedAt}`).join(', '),
      ],
    },
  ];
}

function historyDocument(suite: string, db: string, rows: readonly HistoryRow[], grid: QuestionGrid, files: readonly string[], detection: Detection | undefined): Block[] {
  const runs = new Set(rows.map((r) => r.runId)).size;
  return [
    { kind: 'heading', level: 1, text: ['dsbench history: suite ', { code: suite }] },
    ...(detection ? changeBlocks(detection) : []),
    ...(detection ? ([{ kind: 'heading', level: 2, text: ['Runs'] }] as Block[]) : []),
    {
      kind: 'para',
      text: [`The last ${runs} runs in `, { code: db }, ', oldest first, one row per run and target, with the instance\'s product version at each run\'s start ("changed" where it differs from the night before). The pass rate is of the items that did not err (an error counts once, under errors), as compare\'s.'],
    },
    {
      kind: 'table',
      table: {
        headers: ['run', 'label', 'started', 'status', 'target', 'version', 'items', 'completed', 'errors', 'turns asked', 'pass rate', 'server p50', 'server p90', 'credits', 'credits mean'],
        align: ['right', 'left', 'left', 'left', 'left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
        rows: rows.map((r) => [
          String(r.runId),
          r.label ?? '',
          r.startedAt,
          r.status,
          r.target,
          versionCell(r),
          fmtInt(r.items),
          fmtInt(r.completed),
          itemErrorsText({ itemErrors: r.failed, itemExpectedErrors: r.expectedErrors }),
          fmtInt(r.questions),
          fmtPct(r.passRate),
          fmtSeconds(r.serverMsP50),
          fmtSeconds(r.serverMsP90),
          fmtNum(r.creditsSum, 2),
          fmtNum(r.creditsMean, 2),
        ]),
      },
    },
    ...gridBlocks(grid),
    ...(files.length > 0 ? ([{ kind: 'list', items: files.map((f) => [{ code: f }]) }] as Block[]) : []),
  ];
}

/** `7.0.1 (changed)` on the first night of a new version, `unknown` where it could not be read. */
export function versionCell(r: Pick<HistoryRow, 'productVersion' | 'versionChanged'>): string {
  return `${r.productVersion ?? 'unknown'}${r.versionChanged ? ' (changed)' : ''}`;
}

/** Questions x runs: passed/checked repeats per night, flaky, stepped and quarantined questions marked. */
function gridBlocks(grid: QuestionGrid): Block[] {
  if (grid.rows.length === 0) return [];
  const flaky = grid.rows.filter((r) => r.flaky).length;
  const steps = grid.rows.filter((r) => r.step !== null).length;
  const targets = new Set(grid.rows.map((r) => r.target)).size;
  return [
    { kind: 'heading', level: 2, text: ['Questions night by night'] },
    {
      kind: 'para',
      text: [
        `Repeats whose checks passed, of those checked, per run (oldest first); repeats that ended in an error are left out of the marks. ` +
          `${fmtInt(flaky)} flaky: both a pass and a fail on one night, or outcomes that flip between nights more than once (candidates for quarantine). ` +
          `${fmtInt(steps)} with a step: every night passed up to one run and failed from it on (regressed), or the reverse (fixed); a step is a change to look into, not noise to quarantine. Quarantined ones (tag `,
        { code: 'quarantine' },
        ') are judged by no compare gate. "edited:" marks the first night after the question\'s text, follow-ups or expectations changed under the same id: its series starts again there (flaky looks only at the nights since).',
      ],
    },
    ...(grid.runs.length <= TERMINAL_NIGHTS
      ? [gridTable(grid, targets, 0)]
      : [
          { ...gridTable(grid, targets, 0), markdownOnly: true },
          {
            kind: 'para',
            text: [`The newest ${TERMINAL_NIGHTS} of ${fmtInt(grid.runs.length)} nights, to fit a terminal (the marks judge them all); --format md, --html or --json show every night.`],
            textOnly: true,
          } as Block,
          { ...gridTable(grid, targets, grid.runs.length - TERMINAL_NIGHTS), textOnly: true },
        ]),
  ];
}

/** Nights of the question grid a terminal shows: a 90-night grid is thousands of columns wide. */
const TERMINAL_NIGHTS = 7;

/** The grid from night `from` on (oldest first). */
function gridTable(grid: QuestionGrid, targets: number, from: number): Block {
  const runs = grid.runs.slice(from);
  return {
    kind: 'table',
    table: {
      headers: [...(targets > 1 ? ['target'] : []), 'question', 'mark', ...runs.map((r) => `run ${r.id}`)],
      align: [...(targets > 1 ? (['left'] as const) : []), 'left', 'left', ...runs.map(() => 'right' as const)],
      rows: grid.rows.map((r) => [...(targets > 1 ? [r.target] : []), `${r.kind === 'search' ? 'search ' : ''}${r.id}`, gridMarks(r), ...r.cells.slice(from).map(cellText)]),
    },
  };
}
