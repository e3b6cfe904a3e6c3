import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { dsbenchHere, WIDE } from '../helpers/cli-here.js';
import { recordNights, useTempStore, type TempStore } from './fixtures.js';

// `dsbench report --history N --detect` end to end, on databases of nights recorded through the recorder.

let t: TempStore;
useTempStore((x) => (t = x));

interface Change {
  scope: { target: string; kind: string; name: string | null };
  metric: string;
  runId: number;
  night: number;
  change: number;
  low: number;
  high: number;
  unit: string;
  version: unknown;
}

describe('report --history N --detect', () => {
  it('finds the latency step at the night it started, for the suite and each tag, in every output', async () => {
    const runs = recordNights(t.store, { nights: 12, stepAt: 8, factor: 2 });
    const out = path.join(t.dir, 'h');
    const r = await dsbenchHere(['report', '--db', t.db, '--history', '12', '--detect', '--format', 'json,md', '--html', '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(ExitCode.ok);
    const json = JSON.parse(fs.readFileSync(path.join(out, 'history.json'), 'utf8')) as { changePoints: { nights: number; tooFew: boolean; changes: Change[] } };
    expect(json.changePoints).toMatchObject({ nights: 12, tooFew: false });
    const changes = json.changePoints.changes;
    // Latency doubled at the ninth night: found there, for the suite and both tags; nothing else changed.
    expect(new Set(changes.map((c) => c.metric))).toEqual(new Set(['latency p50', 'latency p90']));
    expect(new Set(changes.map((c) => `${c.scope.kind} ${c.scope.name ?? ''}`))).toEqual(new Set(['suite ', 'tag even', 'tag odd']));
    for (const c of changes) {
      expect(c).toMatchObject({ runId: runs[8], night: 8, unit: 'ratio', version: null });
      expect(c.change).toBeCloseTo(1, 1);
      expect(c.low).toBeLessThan(c.change);
      expect(c.high).toBeGreaterThan(c.change);
    }
    const md = fs.readFileSync(path.join(out, 'history.md'), 'utf8');
    expect(md).toContain('## Change points');
    expect(md).toMatch(new RegExp(`\\| run ${runs[8]} +\\| 2025-03-09T03:00:00.000Z +\\| suite +\\| latency p50 +\\| 1\\.0 s → 2\\.1 s +\\| \\+\\d+\\.\\d% \\(\\+\\d+\\.\\d% … \\+\\d+\\.\\d%\\) +\\| [0-9.]+ +\\| not recorded +\\|`));
    expect(fs.readFileSync(path.join(out, 'history.html'), 'utf8')).toContain('"detection":{"method"');
  });

  it('names the version change recorded at the runs\' start nearest to the change point', async () => {
    const runs = recordNights(t.store, { nights: 12, stepAt: 8, factor: 2, versions: (n) => (n < 7 ? '6.9.2' : '7.0.1') });
    const r = await dsbenchHere(['report', '--db', t.db, '--history', '12', '--detect', '--json', '--out', path.join(t.dir, 'v')]);
    const changes = (JSON.parse(r.stdout) as { changePoints: { versionsKnown: boolean; changes: Change[] } }).changePoints;
    expect(changes.versionsKnown).toBe(true);
    const suite = changes.changes.find((c) => c.scope.kind === 'suite' && c.metric === 'latency p50');
    expect(suite).toMatchObject({ runId: runs[8], version: { runId: runs[7], from: '6.9.2', to: '7.0.1', nights: -1 } });
  });

  it('per question on request; without --detect no change points are looked for', async () => {
    recordNights(t.store, { nights: 10, stepAt: 6, factor: 3, questions: 2 });
    const plain = await dsbenchHere(['report', '--db', t.db, '--history', '10', '--json', '--out', path.join(t.dir, 'a')]);
    expect(JSON.parse(plain.stdout)).not.toHaveProperty('changePoints');
    const r = await dsbenchHere(['report', '--db', t.db, '--history', '10', '--detect-questions', '--json', '--out', path.join(t.dir, 'b')]);
    const changes = (JSON.parse(r.stdout) as { changePoints: { changes: Change[] } }).changePoints.changes;
    expect(changes.filter((c) => c.scope.kind === 'question' && c.metric === 'latency p50').map((c) => [c.scope.name, c.night])).toEqual([['q0', 6], ['q1', 6]]);
  });

  it('in a terminal: the change points before their method, and the question grid of the newest 7 nights only', async () => {
    const runs = recordNights(t.store, { nights: 12, stepAt: 8, factor: 2 });
    const r = await dsbenchHere(['report', '--db', t.db, '--history', '12', '--detect', '--out', path.join(t.dir, 'h')], WIDE);
    expect(r.code).toBe(ExitCode.ok);
    const text = r.stdout;
    // A line per change (a terminal wraps a wide table out of its columns), each saying what, since when, how much, how sure, which version.
    expect(text).toMatch(new RegExp(`^ {2}- run ${runs[8]} \\(2025-03-09T03:00:00\\.000Z\\), suite, latency p50: 1\\.0 s → 2\\.1 s, \\+\\d+\\.\\d% \\(95% interval \\+\\d+\\.\\d% … \\+\\d+\\.\\d%\\), p [0-9.]+; nearest version change: not recorded$`, 'm'));
    expect(text.indexOf(`  - run ${runs[8]} `)).toBeLessThan(text.indexOf('Method: '));
    expect(text).not.toMatch(/^ *night +started /m);
    const header = text.split('\n').find((l) => /^question +mark /.test(l))!;
    expect(header.trim().split(/ {2,}/)).toEqual(['question', 'mark', ...runs.slice(5).map((id) => `run ${id}`)]);
    expect(text).toContain('The newest 7 of 12 nights, to fit a terminal (the marks judge them all); --format md, --html or --json show every night.');
    // history.md keeps every night, without the terminal's note.
    expect((await dsbenchHere(['report', '--db', t.db, '--history', '12', '--detect', '--format', 'md', '--out', path.join(t.dir, 'h')])).code).toBe(ExitCode.ok);
    const md = fs.readFileSync(path.join(t.dir, 'h', 'history.md'), 'utf8');
    expect(md).toMatch(new RegExp(`^\\| question \\| mark \\| ${runs.map((id) => `run ${id}`).join(' \\| ')} \\|$`, 'm'));
    expect(md).not.toContain('to fit a terminal');
  });

  it('too few nights: says how many it has and how many it needs', async () => {
    recordNights(t.store, { nights: 5, stepAt: 3 });
    const r = await dsbenchHere(['report', '--db', t.db, '--history', '30', '--detect', '--out', path.join(t.dir, 'h')], WIDE);
    expect(r.code).toBe(ExitCode.ok);
    // It says what to do: record more nights (asking for --history 30 already asks for enough).
    expect(r.stdout).toContain('Change points need at least 8 nights; this history has 5. Nothing was looked for: record 3 more nights of the suite, then ask for --history 8 or more.');
  });

  it('--detect without --history, or a seed without --detect, is refused with the reason', async () => {
    recordNights(t.store, { nights: 1 });
    const r = await dsbenchHere(['report', '--db', t.db, '--detect']);
    expect(r.code).toBe(ExitCode.usage);
    expect(r.stderr).toContain('--detect looks for change points over nights: it goes with --history N');
    const seedOnly = await dsbenchHere(['report', '--db', t.db, '--history', '5', '--detect-seed', '3']);
    expect(seedOnly.code).toBe(ExitCode.usage);
    expect(seedOnly.stderr).toContain('--detect-seed seeds --detect: add --detect (or --detect-questions)');
  });
});
