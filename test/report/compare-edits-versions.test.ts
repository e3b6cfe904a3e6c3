// Real runs on the emulator, compared: each side's product version is shown in every output, and a question
// edited under the same id (its text or its expectations) is marked edited, listed everywhere and kept out of
// every gate unless --include-edited; history shows each night's version and breaks an edited question's series.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { runsTable } from '../../src/cli/runs.js';
import { compareRuns } from '../../src/report/compare/compare.js';
import { DEFAULT_THRESHOLDS, type FailOn } from '../../src/report/compare/gates.js';
import { writeHistory } from '../../src/report/history-report.js';
import { listRuns } from '../../src/store/queries.js';
import { FAST, cleanup, emulator, runSuite, suite, target, tempDir } from '../runner/fixtures/harness.js';
import { csvObjects } from './fixtures.js';

afterEach(cleanup);

const suiteText = (edit: { text?: boolean; expect?: boolean } = {}) => `
name: edits
defaults:
  api: versioned
  repeats: 2
  poll: { strategy: fixed, interval: 1s }
questions:
  - id: asked
    question: ${edit.text ? 'Where is parseSuite implemented, and who calls it?' : 'Where is parseSuite defined?'}
    expect:
      state: completed
  - id: checked
    question: Where is backoffDelay defined?
    expect:
      state: completed
${edit.expect ? '      contains: "a text no answer has: 7f3a9c"' : ''}
  - id: same
    question: Where is retryPolicy defined?
    expect:
      state: completed
`;

/** Runs `text` on a fresh emulator reporting `version`, into `db`. */
async function night(db: string, text: string, version: string): Promise<number> {
  const e = await emulator({ ...FAST, productVersion: version });
  const run = await runSuite(await suite(text), [target({ name: 'main', emulator: e })], { dbPath: db });
  run.close();
  return run.result.runId;
}

const gates = (...names: FailOn[]) => ({ ...DEFAULT_THRESHOLDS, failOn: new Set<FailOn>(names) });

describe('compare and history across versions and edits', () => {
  it('show each side\'s product version in runs, every compare output and history', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'runs.db');
    const b = await night(db, suiteText(), '6.9.2');
    const c = await night(db, suiteText(), '7.0.1');
    const out = path.join(dir, 'cmp');
    const result = await compareRuns({ baseline: { db, run: String(b) }, candidate: { db, run: String(c) }, out, html: true });
    expect(result.text).toContain('Product version: baseline 6.9.2, candidate 7.0.1 (changed)');
    expect(fs.readFileSync(path.join(out, 'compare.md'), 'utf8')).toContain('baseline 6.9.2, candidate 7.0.1');
    const json = JSON.parse(fs.readFileSync(path.join(out, 'compare.json'), 'utf8'));
    expect(json.baseline.productVersions).toEqual([{ target: 'main', version: '6.9.2', error: null, onResume: null }]);
    expect(json.candidate.productVersions[0].version).toBe('7.0.1');
    expect(fs.readFileSync(path.join(out, 'compare.html'), 'utf8')).toContain('baseline 6.9.2, candidate 7.0.1');
    // Nothing was edited: no item is marked, and nothing is said of edits.
    expect(result.summary.edited.count).toBe(0);
    expect(result.text).not.toContain('Edited');
    expect(csvObjects(path.join(out, 'compare.csv')).every((r) => r.edited === 'false')).toBe(true);

    const reading = new Database(db, { readonly: true });
    try {
      expect(runsTable(listRuns(reading))).toMatch(/version[\s\S]*7\.0\.1[\s\S]*6\.9\.2/);
    } finally {
      reading.close();
    }
    const history = await writeHistory({ db, limit: 5, out: path.join(dir, 'history'), formats: new Set(['csv', 'md', 'json', 'html']) });
    expect(history.rows.map((r) => [r.productVersion, r.versionChanged])).toEqual([['6.9.2', false], ['7.0.1', true]]);
    expect(history.text).toContain('7.0.1 (changed)');
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'history', 'history.json'), 'utf8')).rows[1]).toMatchObject({ productVersion: '7.0.1', versionChanged: true });
    expect(fs.readFileSync(path.join(dir, 'history', 'history.html'), 'utf8')).toContain('"versionChanged":true');
  });

  it('mark questions edited under the same id, list them everywhere and keep them out of every gate', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'runs.db');
    const b = await night(db, suiteText(), '6.9.2');
    const c = await night(db, suiteText({ text: true, expect: true }), '6.9.2');
    const out = path.join(dir, 'cmp');
    const junit = path.join(dir, 'junit.xml');
    const compare = (o: { includeEdited?: boolean; out: string; junit?: string }) =>
      compareRuns({ baseline: { db, run: String(b) }, candidate: { db, run: String(c) }, thresholds: gates('verdict-changes', 'pass-rate'), html: true, ...o });

    const result = await compare({ out, junit });
    // `checked` now fails its new check: judged, that would fail verdict-changes; edited, no gate sees it.
    expect(result.summary.edited.count).toBe(4);
    expect(new Set(result.summary.edited.rows.map((r) => r.itemId))).toEqual(new Set(['asked', 'checked']));
    expect(result.summary.newFailures.count).toBe(0);
    expect(result.summary.failed).toBe(false);
    expect(result.summary.outcomes.passRate.clusters).toBe(1);
    expect(result.text).toContain('Edited under the same id: 4 items');
    expect(fs.readFileSync(path.join(out, 'compare.md'), 'utf8')).toContain('Edited items (4 items, 2 questions)');
    const rows = csvObjects(path.join(out, 'compare.csv'));
    expect(Object.fromEntries(rows.map((r) => [`${r.item_id}/${r.repeat}`, r.edited]))).toEqual({ 'asked/0': 'true', 'asked/1': 'true', 'checked/0': 'true', 'checked/1': 'true', 'same/0': 'false', 'same/1': 'false' });
    expect(JSON.parse(fs.readFileSync(path.join(out, 'compare.json'), 'utf8')).summary.edited).toMatchObject({ count: 4, inGates: false });
    expect(fs.readFileSync(path.join(out, 'compare.html'), 'utf8')).toMatch(/"edited":\{"count":4,"inGates":false/);
    const xml = fs.readFileSync(junit, 'utf8');
    expect(xml.match(/<skipped message="edited under the same id/g)).toHaveLength(4);
    expect(xml).toContain('skipped="4"');

    const included = await compare({ out: path.join(dir, 'cmp-included'), includeEdited: true });
    expect(included.summary.newFailures.count).toBe(2);
    expect(included.summary.failed).toBe(true);
    expect(included.text).toContain('judged by the gates as any other item (--include-edited)');

    // History: the edited questions' series start again on the second night.
    const history = await writeHistory({ db, limit: 5, out: path.join(dir, 'history'), formats: new Set(['md']) });
    expect(history.text).toMatch(/^asked +2\/2 +edited: 2\/2$/m);
    // A question that failed only after its edit is no flaky question: its series broke there.
    expect(history.text).toMatch(/^checked +2\/2 +edited: 0\/2$/m);
    expect(history.text).toMatch(/^same +2\/2 +2\/2$/m);
  });

  it('pair runs recorded before items had a definition hash as before: unknown, never edited', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'runs.db');
    const b = await night(db, suiteText(), '6.9.2');
    const c = await night(db, suiteText({ text: true, expect: true }), '6.9.2');
    // The baseline as a run from before the hash was recorded (no command writes this).
    const raw = new Database(db);
    raw.prepare('UPDATE items SET definition_hash = NULL WHERE run_id = ?').run(b);
    raw.close();
    const result = await compareRuns({ baseline: { db, run: String(b) }, candidate: { db, run: String(c) }, out: path.join(dir, 'cmp'), thresholds: gates('verdict-changes') });
    expect(result.summary.edited.count).toBe(0);
    expect(result.summary.newFailures.count).toBe(2);
    expect(result.summary.failed).toBe(true);
  });
});
