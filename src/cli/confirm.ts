import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { boundTargets } from '../config/resume-targets.js';
import { UsageError } from '../errors/errors.js';
import { ExitCode } from '../errors/exit-codes.js';
import { pooledText } from '../report/compare/compare-document.js';
import { DEFAULT_THRESHOLDS, FAIL_ON, parsePercent, VERDICT_EXIT_CODE } from '../report/compare/gates.js';
import { type Block, renderMarkdown, renderText } from '../report/document.js';
import { DEFAULT_DB, outputDir } from '../report/open.js';
import { plural, safeJson } from '../report/tables.js';
import { recordComparedVerdict } from '../store/queries.js';
import { openStore } from '../store/store.js';
import { REPORTERS } from '../runner/reporters/index.js';
import { DEFAULT_BOOTSTRAP } from '../stats/bootstrap.js';
import { commandUsage } from './command-usage.js';
import { bootstrapFrom, type CompareArgs, thresholdsFrom } from './compare.js';
import { type ConfirmResult, confirmRun, parseConfirmBudget } from './confirm-run.js';
import { type GlobalArgs, pathOption, transportSettings } from './global-options.js';
import type { CommandContext } from './io.js';
import { textWidthFor } from './text-width.js';
import { onStopSignal } from './signals.js';

export interface ConfirmArgs extends CompareArgs {
  run: string;
  target: string[];
  confirmBudget: string;
  confirmAlpha: string;
}

const pct = (x: number, digits = 2): string => `${+(x * 100).toFixed(digits)}%`;

/** How many times the questions were re-asked: `3 questions x 4 repeats`, or `2 questions x 4 repeats and 1 x 3 repeats` when the budget split unevenly. */
export function repeatsText(repeats: readonly number[]): string {
  const counts = new Map<number, number>();
  for (const n of repeats) counts.set(n, (counts.get(n) ?? 0) + 1);
  const groups = [...counts].sort((a, b) => b[0] - a[0]);
  if (groups.length === 0) return '0 questions';
  return groups.map(([n, questions], i) => `${i === 0 ? plural(questions, 'question') : questions} x ${plural(n, 'repeat')}`).join(' and ');
}

/** What `dsbench confirm` prints and writes (confirm.md, confirm.json): the verdict first, then each look. */
export function confirmDocument(r: ConfirmResult): Block[] {
  const c = r.first.candidate.run;
  const b = r.first.baseline;
  const against = b.window ? pooledText(b.window) : `run ${b.run.id}`;
  const blocks: Block[] = [
    { kind: 'heading', level: 1, text: [`dsbench confirm: run ${c.id} against ${against}`] },
    { kind: 'para', text: [r.line] },
    { kind: 'para', text: [`First look (the comparison at its plain level): ${r.first.verdictLine}`] },
  ];
  if (r.levels === null) {
    blocks.push({ kind: 'para', text: ['No statistical gate is on (--fail-on, the metric thresholds): nothing to confirm, nothing asked.'] });
    return blocks;
  }
  const l = r.levels;
  blocks.push({
    kind: 'para',
    text: [
      `Two looks with Lan-DeMets alpha spending of the O'Brien-Fleming type: a red verdict's false-alarm rate ${pct(l.alpha)} over both looks, ` +
        `information fraction ${l.informationFraction.toFixed(3)} (items asked over items asked plus the budget), first look ${pct(l.first, 3)}, second ${pct(l.second, 3)}, each split over ${l.gates} gates by weight (docs/statistics.md). ` +
        `The first look tests every one of them; a second look for ${r.flagged.length > 0 ? r.flagged.join(', ') : 'none'} (failed or near at the plain level, or a rate's p below twice its plain level at the first look).`,
    ],
  });
  // Lists, not tables: a gate's reasoning is longer than a terminal's table cell, and a cell cut mid-figure misleads.
  if (r.firstLooks.length > 0) {
    blocks.push({ kind: 'para', text: ["First look, each gate at its share of the first look's level:"] });
    blocks.push({ kind: 'list', items: r.firstLooks.map((g) => [`${g.gate}: ${g.notJudged ?? (g.crossed ? 'REGRESSED' : g.calls ? 'near: a second look' : 'not crossed')}; ${g.how}`]) });
  }
  if (r.second === null && !r.interrupted) blocks.push({ kind: 'para', text: ['No gate crossed at the first look or came near enough to call for a second: nothing asked.'] });
  if (r.second && r.second.firstLookRegressed.length > 0) blocks.push({ kind: 'para', text: [`Regressed at the first look's spent level: ${r.second.firstLookRegressed.join(', ')}; nothing re-asked.`] });
  if (r.confirmRunId !== null) {
    blocks.push({
      kind: 'para',
      text: [
        `Re-asked in confirmation run ${r.confirmRunId} (its own run, counted apart from run ${c.id}): ${repeatsText(r.reasked.questionRepeats)}, ${r.reasked.items} items of a budget of ${r.reasked.budget}` +
          `${r.reasked.credits === null ? '' : `, ${r.reasked.credits} credits`}: ${r.reasked.questions.join(', ')}.`,
      ],
    });
  } else if (r.looks.length > 0) blocks.push({ kind: 'para', text: ['No question drove a flagged rate gate the bad way: nothing re-asked.'] });
  if (r.looks.length > 0) {
    blocks.push({ kind: 'para', text: ['Second look:'] });
    blocks.push({ kind: 'list', items: r.looks.map((g) => [`${g.gate}: ${g.crossed ? 'REGRESSED' : g.flaggedStill ? 'unsettled' : 'settled: unchanged'}; ${g.how}`]) });
  }
  return blocks;
}

/** `--confirm-alpha`: a percentage above 0% and below 50%. */
export function parseConfirmAlpha(text: string): number {
  const alpha = parsePercent(text, '--confirm-alpha');
  if (alpha === null || !(alpha > 0 && alpha < 0.5)) throw new UsageError(`--confirm-alpha takes a percentage above 0% and below 50%, e.g. 1%; got ${text}`);
  return alpha;
}

/** The confirmed verdict's exit code (an interrupted confirmation decided nothing: aborted). */
export function confirmExitCode(r: ConfirmResult): ExitCode {
  return (r.interrupted ? ExitCode.aborted : VERDICT_EXIT_CODE[r.verdict]) as ExitCode;
}

/** Writes confirm.md and confirm.json into `out` (default beside the database) and returns the document. */
export function writeConfirmation(r: ConfirmResult, db: string, out: string | undefined): Block[] {
  const blocks = confirmDocument(r);
  const b = r.first.baseline;
  const folder = out ?? outputDir(db, `confirm-${r.first.candidate.run.id}-vs-${b.window ? `window${b.window.requested}` : b.run.id}`);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'confirm.md'), renderMarkdown(blocks));
  writeFileSync(path.join(folder, 'confirm.json'), safeJson(confirmJson(r)));
  return blocks;
}

export function confirmJson(r: ConfirmResult): Record<string, unknown> {
  return {
    verdict: r.verdict,
    verdictLine: r.line,
    exitCode: r.interrupted ? ExitCode.aborted : VERDICT_EXIT_CODE[r.verdict],
    baseline: { runId: r.first.baseline.run.id, db: r.first.baseline.db, ...(r.first.baseline.window && { window: { requested: r.first.baseline.window.requested, runIds: r.first.baseline.window.runs.map((x) => x.id) } }) },
    candidate: { runId: r.first.candidate.run.id, db: r.first.candidate.db },
    firstLook: { verdict: r.first.verdict, verdictLine: r.first.verdictLine, gates: r.first.summary.gates, files: r.first.files },
    flagged: r.flagged,
    levels: r.levels,
    firstLooks: r.firstLooks,
    secondLook: r.second,
    looks: r.looks,
    confirmRunId: r.confirmRunId,
    reasked: r.reasked,
    interrupted: r.interrupted,
  };
}

export const confirmCommand = (cli: CommandContext): CommandModule<GlobalArgs, ConfirmArgs & GlobalArgs> => ({
  ...commandUsage.confirm,
  builder: (y: Argv<GlobalArgs>) =>
    y
      .positional('run', { type: 'string', demandOption: true, describe: 'The finished run to confirm: id, label, latest; ~N goes N runs back' })
      .option('baseline', { type: 'string', describe: 'The run it is compared with (id, label, latest~1, blessed:NAME), or window:K (the last K passing runs before it, pooled): required' })
      .option('db', { ...pathOption(cli), type: 'string', default: DEFAULT_DB, describe: 'Results database of the run (the confirmation is recorded there)' })
      .option('baseline-db', { ...pathOption(cli), type: 'string', describe: 'Results database of the baseline, when it is another file (only read)' })
      .option('target', { type: 'string', array: true, default: [] as string[], describe: "The run's own target, name=URL, if given: another URL is refused" })
      .option('confirm-budget', { type: 'string', default: '10%', describe: "Most items re-asked: a share of the run's items (10%) or a number (25)" })
      .option('confirm-alpha', { type: 'string', default: '1%', describe: "False-alarm rate of a red verdict over both looks (all gates together)" })
      .option('out', { ...pathOption(cli), type: 'string', describe: 'Output folder (default results/confirm-<run>-vs-<baseline>)' })
      .option('format', { type: 'string', choices: ['text', 'md', 'json'], describe: 'What to print: text (default), md or json' })
      .option('max-latency-regression', { type: 'string', default: `${DEFAULT_THRESHOLDS.latency! * 100}%`, describe: 'As for compare' })
      .option('max-credits-regression', { type: 'string', default: `${DEFAULT_THRESHOLDS.credits! * 100}%`, describe: 'As for compare' })
      .option('max-pass-rate-drop', { type: 'string', default: '0%', describe: 'As for compare' })
      .option('max-error-rate-rise', { type: 'string', default: '0%', describe: 'As for compare' })
      .option('fail-on', { type: 'string', default: [...DEFAULT_THRESHOLDS.failOn].join(','), describe: `As for compare: ${FAIL_ON.join(', ')}, or none` })
      .option('min-pairs', { type: 'number', default: DEFAULT_THRESHOLDS.minPairs, describe: 'As for compare' })
      .option('confidence', { type: 'number', default: DEFAULT_BOOTSTRAP.confidence * 100, describe: "The first look's plain level, as for compare (95: gates at 5%)" })
      .option('seed', { type: 'number', default: DEFAULT_BOOTSTRAP.seed, describe: 'Seed of the bootstrap and of the tests' }) as unknown as Argv<ConfirmArgs & GlobalArgs>,
  handler: async (argv: ArgumentsCamelCase<ConfirmArgs & GlobalArgs>) => {
    if (argv.baseline === undefined) {
      throw new UsageError('a confirmation needs --baseline: the run the verdict compares with (e.g. --baseline nightly~1); without one there is no verdict to confirm');
    }
    const budget = parseConfirmBudget(argv.confirmBudget);
    const alpha = parseConfirmAlpha(argv.confirmAlpha);
    const transport = transportSettings(argv);
    const stop = new AbortController();
    const abort = new AbortController();
    const release = onStopSignal((signal) => {
      cli.stderr.write(`dsbench: ${signal}: launching nothing more and cancelling what runs; dsbench confirm again resumes the confirmation (nothing is asked twice)\n`);
      stop.abort();
      abort.abort();
    });
    let result: ConfirmResult;
    try {
      result = await confirmRun({
        db: argv.db,
        run: String(argv.run),
        baseline: { db: argv.baselineDb ?? argv.db, run: String(argv.baseline) },
        budget,
        alpha,
        thresholds: thresholdsFrom(argv),
        bootstrap: bootstrapFrom(argv),
        out: argv.out,
        bind: (runId, stored) => {
          if (stored.some((t) => t.emulated)) {
            throw new UsageError(`run ${runId} ran on the embedded emulator, which ended with its process: a confirmation asks the run's own instance again. Run the suite against an instance (or dsbench emulator) with --endpoint and confirm that run`);
          }
          const bound = boundTargets(runId, stored, argv.target, argv.endpoint, cli.env);
          if (bound.notes.length > 0) throw new UsageError(`${bound.notes.join('; ')}. The endpoint changed since the run: a confirmation asks the run's own instance; unset SRC_ENDPOINT or set it to the run's endpoint`);
          return bound.targets.map((t) => ({ ...t, emulated: false, timeScale: 1 }));
        },
        reporter: REPORTERS.quiet(cli.stderr),
        stop: stop.signal,
        abort: abort.signal,
        retry: transport.retry,
        requestTimeoutMs: transport.timeoutMs,
      });
    } finally {
      release();
    }
    const blocks = writeConfirmation(result, argv.db, argv.out);
    const format = argv.format ?? (argv.json ? 'json' : 'text');
    cli.stdout.write(format === 'json' ? safeJson(confirmJson(result)) : format === 'md' ? renderMarkdown(blocks) : renderText(blocks, textWidthFor(cli)));
    const code = confirmExitCode(result);
    if (!result.interrupted) recordVerdict(argv.db, result.first.candidate.run.id, code);
    if (code !== ExitCode.ok) cli.exitCode = code;
  },
});

/** The confirmed run's night verdict is now the confirmation's, for the pooled baselines of later nights. */
function recordVerdict(db: string, runId: number, code: ExitCode): void {
  const store = openStore(db);
  try {
    recordComparedVerdict(store.db, runId, code);
  } finally {
    store.close();
  }
}
