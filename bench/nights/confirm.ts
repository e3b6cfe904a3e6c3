import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { confirmRun, parseConfirmBudget } from '../../src/cli/confirm-run.js';
import { comparisonExitCode } from '../../src/cli/run-baseline.js';
import { type LoadedSuite, loadSuite } from '../../src/config/load-suite.js';
import { compareRuns } from '../../src/report/compare/compare.js';
import { DEFAULT_THRESHOLDS, parsePercent } from '../../src/report/compare/gates.js';
import { DEFAULT_BOOTSTRAP } from '../../src/stats/bootstrap.js';
import { blessRun } from '../../src/store/baselines.js';
import { passedRunsBefore, recordComparedVerdict } from '../../src/store/queries.js';
import { openStore } from '../../src/store/store.js';
import { NEVER, RETRY, SCENARIOS, nightService, nightTarget, runNight, suiteText, wilson } from './nights-lib.js';

// The second look before red, on the nights benchmark: each pair of nights (a baseline night of the
// unchanged service, a candidate night with or without a regression) is judged by `dsbench confirm`
// (confirmRun, default gates) with the candidate's service still up, so the re-asked questions go to the
// same instance and night. Counts: red (regressed) and suspect nights, and the items re-asked, against
// the items of all candidate nights. Every night runs on one port, so baseline and candidate share an
// endpoint as a confirmation requires.

export interface ConfirmBenchOptions {
  nullPairs: number;
  regressedPairs: number;
  questions: number;
  flaky: number;
  repeats: number;
  seed: string;
  only: string | undefined;
  verbose: boolean;
  write: boolean;
  budget: string;
  alpha: string;
  /** Repeats of each baseline night (a release run asked once with more repeats and blessed); undefined: the suite's. */
  baselineRepeats: number | undefined;
  /** Baseline nights pooled as `window:K` (the nightly flow's `run --baseline window:K`); undefined: one night. */
  baselineWindow: number | undefined;
}

interface Tally {
  pairs: number;
  plainRed: number;
  red: number;
  suspect: number;
  confirmed: number;
  extra: number;
  items: number;
  /** window:K: pairs whose window pooled fewer than K nights, and none (the nightly run would exit 2, judging nothing). */
  short: number;
  noWindow: number;
}

export async function confirmBench(o: ConfirmBenchOptions): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsbench-nights-confirm-'));
  const started = performance.now();
  const budget = parseConfirmBudget(o.budget);
  const alpha = parsePercent(o.alpha, '--confirm-alpha') ?? 0.01;
  try {
    const file = path.join(dir, 'nights.yaml');
    writeFileSync(file, suiteText(o.questions, o.flaky, o.repeats));
    const suite = await loadSuite(file);
    const db = path.join(dir, 'nights.db');
    const tallies = new Map<string, Tally>();
    let port = 0;
    for (const [scenario, regression] of Object.entries(SCENARIOS).filter(([name]) => o.only === undefined || name.includes(o.only))) {
      const pairs = regression === null ? o.nullPairs : o.regressedPairs;
      const t: Tally = { pairs: 0, plainRed: 0, red: 0, suspect: 0, confirmed: 0, extra: 0, items: 0, short: 0, noWindow: 0 };
      tallies.set(scenario, t);
      for (let i = 0; i < pairs; i++) {
        const seed = `${o.seed}/${scenario}/${i}`;
        const baseline = await baselineNights(o, suite, dir, seed, port);
        port = baseline.port;
        if (o.baselineWindow !== undefined && baseline.pooled < o.baselineWindow) t.short++;
        if (baseline.pooled === 0) {
          t.pairs++;
          t.noWindow++;
          t.items += o.questions * o.repeats;
          cleanBaseline(dir);
          continue;
        }
        const service = await nightService(`${seed}/b`, regression, port);
        try {
          const c = await runNight(suite, db, service);
          const r = await confirmRun({
            db, run: String(c), baseline: baseline.ref, budget, alpha, thresholds: DEFAULT_THRESHOLDS, bootstrap: DEFAULT_BOOTSTRAP,
            out: path.join(dir, 'confirm'), bind: () => [nightTarget(service)], reporter: { log: () => undefined, onEvent: () => undefined }, stop: NEVER, abort: NEVER, retry: RETRY,
          });
          t.pairs++;
          t.items += o.questions * o.repeats;
          t.extra += r.reasked.items;
          if (r.first.summary.failed) t.plainRed++;
          if (r.verdict === 'regressed') t.red++;
          if (r.verdict === 'suspect') t.suspect++;
          if (r.confirmRunId !== null) t.confirmed++;
          if (o.verbose && (r.verdict === 'regressed') === (regression === null)) process.stderr.write(`\n${scenario} pair ${i}: ${r.line}\n${r.looks.map((l) => `  ${l.gate}: ${l.how}`).join('\n')}\n`);
        } finally {
          await service.stop();
          rmSync(path.join(dir, 'confirm'), { recursive: true, force: true });
          cleanBaseline(dir);
        }
        process.stderr.write(`\r${scenario}: ${i + 1}/${pairs}   `);
      }
      process.stderr.write('\n');
    }
    const all = [...tallies.values()];
    const extra = all.reduce((a, t) => a + t.extra, 0);
    const items = all.reduce((a, t) => a + t.items, 0);
    const lines = [
      `Confirmation, seed ${o.seed}: ${o.questions} questions (${o.flaky} flaky) x ${o.repeats} repeats a night${baselineText(o)}, noise profile realistic, default gates, \`--confirm-budget ${o.budget}\`, false-alarm rate of a red verdict ${(alpha * 100).toFixed(1)}%;`,
      `${o.nullPairs} null pairs, ${o.regressedPairs} pairs per regression; ${((performance.now() - started) / 1000).toFixed(0)} s, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}.`,
      '',
      '| scenario | red without confirming | red (regressed) after confirming | suspect | confirmations that asked | items re-asked / items of the candidate nights |',
      '|---|---|---|---|---|---|',
      ...[...tallies].map(([scenario, t]) => `| ${scenario} | ${t.plainRed}/${t.pairs} = ${wilson(t.plainRed, t.pairs)} | ${t.red}/${t.pairs} = ${wilson(t.red, t.pairs)} | ${t.suspect}/${t.pairs} | ${t.confirmed}/${t.pairs} | ${t.extra}/${t.items} = ${((100 * t.extra) / Math.max(1, t.items)).toFixed(2)}% |`),
      '',
      `Items re-asked over all nights: ${extra} of ${items} = ${((100 * extra) / Math.max(1, items)).toFixed(2)}%.`,
      ...(o.baselineWindow === undefined
        ? []
        : ['', `window:${o.baselineWindow}: pairs whose window pooled fewer than ${o.baselineWindow} nights (a baseline night not judged unchanged against its window), and none (the run exits 2 and judges nothing; counted as not red): ${[...tallies].map(([scenario, t]) => `${scenario} ${t.short} and ${t.noWindow} of ${t.pairs}`).join('; ')}.`]),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (o.write) {
      const file = path.join('bench', 'nights', 'RESULTS.md');
      const text = readFileSync(file, 'utf8');
      const marker = `\n## A second look before red (--confirm${o.baselineRepeats === undefined ? '' : `, baselines of ${o.baselineRepeats} repeats`}${o.baselineWindow === undefined ? '' : `, window:${o.baselineWindow} baselines`})\n`;
      const head = text.includes(marker) ? text.slice(0, text.indexOf(marker)) : text.trimEnd() + '\n';
      writeFileSync(file, `${head}${marker}\n${lines.join('\n')}\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A pair's baseline: one night of the unchanged service or, with `baselineWindow` K, the nightly flow as the
 * CI examples run it: a first night blessed with --force, then K nights each run with `--baseline window:K`
 * (the blessed night and those before it judged unchanged), their comparisons' verdicts recorded as `run
 * --baseline` records them; the candidate's window pools the last K of them judged unchanged, the blessed
 * night among them while fewer are. Each night is a new seed; a database per pair keeps the pairs
 * independent.
 */
async function baselineNights(o: ConfirmBenchOptions, suite: LoadedSuite, dir: string, seed: string, port: number): Promise<{ ref: { db: string; run: string }; port: number; pooled: number }> {
  const at = async (db: string, nightSeed: string): Promise<number> => {
    const service = await nightService(nightSeed, null, port);
    port = new URL(service.url).port === '' ? port : Number(new URL(service.url).port);
    try {
      return await runNight(suite, db, service, o.baselineRepeats);
    } finally {
      await service.stop();
    }
  };
  if (o.baselineWindow === undefined) {
    const db = path.join(dir, 'nights.db');
    return { ref: { db, run: String(await at(db, `${seed}/a`)) }, port, pooled: 1 };
  }
  const db = path.join(dir, 'baseline.db');
  const first = await at(db, `${seed}/a`);
  const blessing = openStore(db);
  try {
    blessRun(blessing.db, { name: 'start', runId: first, blessedAt: new Date().toISOString(), forced: true });
  } finally {
    blessing.close();
  }
  const window = { db, run: `window:${o.baselineWindow}` };
  for (let k = 1; k <= o.baselineWindow; k++) {
    const night = await at(db, `${seed}/a${k}`);
    const compared = await compareRuns({ baseline: window, candidate: { db, run: String(night) }, out: path.join(dir, 'baseline-compare'), thresholds: DEFAULT_THRESHOLDS, bootstrap: DEFAULT_BOOTSTRAP });
    const store = openStore(db);
    try {
      recordComparedVerdict(store.db, night, comparisonExitCode(compared));
    } finally {
      store.close();
    }
  }
  const store = openStore(db);
  try {
    const pooled = passedRunsBefore(store.db, suite.suite.name, undefined, o.baselineWindow, () => true).length;
    return { ref: { db, run: `window:${o.baselineWindow}` }, port, pooled };
  } finally {
    store.close();
  }
}

function cleanBaseline(dir: string): void {
  for (const f of ['baseline.db', 'baseline.db-wal', 'baseline.db-shm', 'baseline-compare']) rmSync(path.join(dir, f), { recursive: true, force: true });
}

function baselineText(o: ConfirmBenchOptions): string {
  const repeats = o.baselineRepeats === undefined ? '' : ` of ${o.baselineRepeats} repeats`;
  if (o.baselineWindow !== undefined) return ` against window:${o.baselineWindow} baselines (${o.baselineWindow} nights${repeats} each)`;
  return o.baselineRepeats === undefined ? '' : ` against baselines${repeats}`;
}
