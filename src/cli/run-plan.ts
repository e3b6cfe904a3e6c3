import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { LoadedSuite } from '../config/load-suite.js';
import type { NamedConnection } from '../config/targets.js';
import { UsageError } from '../errors/errors.js';
import { openResults } from '../report/open.js';
import { DEFAULT_TEXT_WIDTH, fmtNum, fmtSeconds, textTable } from '../report/tables.js';
import { wrapText } from '../report/text-fit.js';
import { median } from '../runner/budget.js';
import { planItems, planPart, type Subset } from '../runner/plan.js';
import { itemHistory, lastQuota, type ItemCosts, type LastQuota } from '../store/estimates.js';
import type { ApiFlavour } from '../model/api-flavour.js';
import { resolveRunSettings, type RunFlags, type RunSettings } from '../runner/run-settings.js';
import { EMULATOR_TARGET } from './run-start.js';
import { rerunOf, type RerunArgs } from './run-subset.js';
import type { CliOutput } from './io.js';

/** The flags `run --dry-run` reads. */
export interface DryRunArgs extends RerunArgs, RunFlags {
  searchConcurrency?: number | undefined;
  json?: boolean | undefined;
}

/** What `readRunInputs` gave: the suite, targets and --only as given, and a new run's settings. */
export interface DryRunInputs {
  givenSuite: LoadedSuite | undefined;
  named: NamedConnection[] | undefined;
  onlyGiven: Subset | undefined;
  settings: RunSettings | undefined;
}

/** `run --dry-run`: the plan and its estimate, from the database when there is one (never made by it). */
export async function dryRun(argv: DryRunArgs, inputs: DryRunInputs, stdout: CliOutput, width = DEFAULT_TEXT_WIDTH): Promise<void> {
  const { givenSuite, named, onlyGiven } = inputs;
  const store = existsSync(argv.db) ? openResults(argv.db) : undefined;
  try {
    if (argv.rerunFailed !== undefined && !store) throw new UsageError(`no results database at ${argv.db}: --rerun-failed needs the run's database (--db)`);
    const rerun = store && argv.rerunFailed !== undefined ? await rerunOf(store, argv, givenSuite, onlyGiven) : undefined;
    const suite = (rerun?.suite ?? givenSuite) as LoadedSuite;
    const targets = rerun
      ? rerun.source.targets.map((t) => ({ name: t.name, url: t.emulated ? undefined : t.url }))
      : (named?.map((t) => ({ name: t.name, url: t.connection.endpoint })) ?? [{ name: EMULATOR_TARGET, url: undefined }]);
    const subset = rerun?.subset ?? onlyGiven;
    const settings = inputs.settings ?? resolveRunSettings(argv, suite.resolved, targets.map((t) => t.name), { rerunOf: rerun?.source }, subset);
    const plan = dryRunPlan({
      suite,
      targets,
      api: settings.api,
      repeats: settings.repeats,
      concurrency: settings.concurrency ?? suite.resolved.concurrency,
      searchConcurrency: argv.searchConcurrency ?? suite.resolved.searchConcurrency,
      subset,
      db: store?.db,
      dbPath: argv.db,
      width,
    });
    stdout.write(argv.json ? `${JSON.stringify(plan.json, null, 2)}\n` : plan.text);
  } finally {
    store?.close();
  }
}

/** What `run --dry-run` plans: the suite, its targets (no URL for the embedded emulator) and options. */
export interface DryRunInput {
  suite: LoadedSuite;
  targets: ReadonlyArray<{ name: string; url: string | undefined }>;
  api: ApiFlavour;
  repeats: number | undefined;
  concurrency: number;
  searchConcurrency: number;
  subset: Subset | undefined;
  /** The results database, when there is one: where the history is read. */
  db: Database.Database | undefined;
  dbPath: string;
  /** Columns the text is fitted to (default DEFAULT_TEXT_WIDTH). */
  width?: number | undefined;
}

/** One suite item on one target: how many times it is planned, and what earlier runs recorded of it. */
interface PlannedRow {
  target: string;
  kind: 'question' | 'search';
  id: string;
  planned: number;
  credits: Spread | undefined;
  wallMs: Spread | undefined;
  runs: number;
}

interface Spread {
  median: number;
  min: number;
  max: number;
}

interface TargetPlan {
  name: string;
  url: string | undefined;
  questions: number;
  searches: number;
  /** Sum over planned items of their median credits; null when the API reports none. */
  credits: number | null;
  /** Planned questions with no credits on record. */
  withoutHistory: number;
  /** Sum of median wall times over the concurrency, questions and searches running side by side. */
  wallMs: number;
  quota: LastQuota | undefined;
}

/** Rows shown per target at most; the JSON has them all. */
const SHOWN_ROWS = 50;

const spread = (values: readonly number[]): Spread | undefined =>
  values.length === 0 ? undefined : { median: median(values) as number, min: Math.min(...values), max: Math.max(...values) };

/** The plan of a run that is not started, and its estimate from earlier runs: text and JSON. Asks nothing. */
export function dryRunPlan(input: DryRunInput): { text: string; json: unknown } {
  const all = planItems(input.suite.resolved, input.targets.map((t) => t.name), input.repeats);
  const plan = input.subset ? planPart(all, input.subset.keep) : all;
  const rows = new Map<string, PlannedRow>();
  const histories = new Map(input.targets.map((t) => [t.name, t.url !== undefined && input.db ? itemHistory(input.db, input.suite.resolved.name, t.url) : new Map<string, ItemCosts>()]));
  for (const item of plan) {
    const id = `${item.target}\u0000${item.kind}/${item.suiteItemId}`;
    let row = rows.get(id);
    if (!row) {
      const costs = histories.get(item.target)?.get(`${item.kind}/${item.suiteItemId}`);
      row = { target: item.target, kind: item.kind, id: item.suiteItemId, planned: 0, credits: spread(costs?.credits ?? []), wallMs: spread(costs?.wallMs ?? []), runs: costs?.wallMs.length ?? 0 };
      rows.set(id, row);
    }
    row.planned++;
  }
  const targets: TargetPlan[] = input.targets.map((t) => {
    const own = [...rows.values()].filter((r) => r.target === t.name);
    const questions = own.filter((r) => r.kind === 'question');
    const searches = own.filter((r) => r.kind === 'search');
    const wall = (list: PlannedRow[], at: number) => list.reduce((sum, r) => sum + (r.wallMs?.median ?? 0) * r.planned, 0) / at;
    return {
      name: t.name,
      url: t.url,
      questions: questions.reduce((n, r) => n + r.planned, 0),
      searches: searches.reduce((n, r) => n + r.planned, 0),
      credits: input.api === 'versioned' ? null : questions.reduce((sum, r) => sum + (r.credits?.median ?? 0) * r.planned, 0),
      withoutHistory: questions.filter((r) => r.credits === undefined).reduce((n, r) => n + r.planned, 0),
      wallMs: Math.max(wall(questions, input.concurrency), wall(searches, input.searchConcurrency)),
      quota: t.url !== undefined && input.db ? lastQuota(input.db, t.url) : undefined,
    };
  });
  return { text: planText(input, targets, [...rows.values()]), json: { dryRun: true, suite: input.suite.resolved.name, api: input.api, targets, items: [...rows.values()] } };
}

function planText(input: DryRunInput, targets: readonly TargetPlan[], rows: readonly PlannedRow[]): string {
  const part = input.subset?.rerunOf !== undefined ? `, the items of run ${input.subset.rerunOf} that failed` : '';
  const only = input.subset?.only ? `, ${input.subset.only.map((o) => `--only ${o}`).join(' ')}` : '';
  const head =
    `Plan of suite ${input.suite.resolved.name} (${input.suite.path})${part}${only}: ${input.api} API, ` +
    `repeats ${input.repeats ?? 'as the suite says'}, concurrency ${input.concurrency} (searches ${input.searchConcurrency})\n` +
    targets.map((t) => `  ${t.name}${t.url ? ` (${t.url})` : ' (embedded emulator)'}: ${t.questions} question${t.questions === 1 ? '' : 's'}, ${t.searches} search${t.searches === 1 ? '' : 'es'}\n`).join('');
  const cell = (s: Spread | undefined, fmt: (n: number) => string) => (s === undefined ? 'no history' : `${fmt(s.median)} (${fmt(s.min)}-${fmt(s.max)})`);
  const credits = (n: number) => fmtNum(n, 2);
  const shown = rows.slice(0, SHOWN_ROWS);
  const table = textTable({
    headers: ['target', 'item', 'planned', 'earlier', 'credits: median (min-max)', 'wall: median (min-max)'],
    align: ['left', 'left', 'right', 'right', 'left', 'left'],
    rows: shown.map((r) => [
      r.target,
      `${r.kind} ${r.id}`,
      String(r.planned),
      String(r.runs),
      r.kind === 'search' ? '' : input.api === 'versioned' ? 'not measured' : cell(r.credits, credits),
      cell(r.wallMs, (ms) => fmtSeconds(ms)),
    ]),
  }, input.width);
  const more = rows.length > shown.length ? `... and ${rows.length - shown.length} more (--json lists them all)\n` : '';
  const totals = targets
    .map((t) => {
      const spent = t.credits === null ? 'credits not measured (versioned API)' : `credits about ${credits(t.credits)}${t.withoutHistory > 0 ? ` (+ ${t.withoutHistory} question${t.withoutHistory === 1 ? '' : 's'} with no history)` : ''}`;
      const quota = t.quota === undefined ? 'quota never reported' : t.quota.limit < 0 ? `quota unlimited (as of ${t.quota.at})` : `quota left ${credits(t.quota.limit - t.quota.used)} of ${credits(t.quota.limit)} as of ${t.quota.at}${t.quota.resetTime ? `, resets ${t.quota.resetTime}` : ''}`;
      return `  ${t.name}: ${spent}; wall time about ${fmtSeconds(t.wallMs)}; ${quota}\n`;
    })
    .join('');
  return (
    `${wrapText(head, input.width ?? DEFAULT_TEXT_WIDTH, 2)}\nEstimate from the earlier runs of this suite on each target (${input.db ? `in ${input.dbPath}` : `no database at ${input.dbPath}`}; medians, per item):\n` +
    `${table}${more}\nTotals:\n${totals}\nNothing was asked (--dry-run).\n`
  );
}
