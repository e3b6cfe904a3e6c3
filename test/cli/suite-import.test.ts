// `dsbench suite import FILE.csv|FILE.jsonl`: a suite written from rows, loading as the rows said (a round
// trip through smoke.yaml's own questions), every bad row reported at once at its line and column.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify as csv } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runSuiteImport } from '../../src/cli/suite-import.js';
import { loadSuite } from '../../src/config/load-suite.js';
import { SuiteError } from '../../src/errors/errors.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { dsbenchHere } from '../helpers/cli-here.js';
import { tempDir } from '../runner/fixtures/harness.js';

type Raw = Record<string, unknown> & { followups?: unknown[]; expect?: Record<string, unknown> };
const SMOKE = parse(readFileSync(new URL('../../suites/smoke.yaml', import.meta.url), 'utf8')) as { questions: Raw[] };

function write(name: string, text: string): string {
  const file = path.join(tempDir('dsbench-import-'), name);
  writeFileSync(file, text);
  return file;
}

function importFile(file: string, extra: Partial<Parameters<typeof runSuiteImport>[0]> = {}) {
  let printed = '';
  runSuiteImport({ file, force: false, ...extra }, { write: (t: string) => (printed += t) });
  return printed;
}

function problems(file: string): string[] {
  try {
    importFile(file);
  } catch (error) {
    expect(error).toBeInstanceOf(SuiteError);
    return (error as Error).message.split('\n');
  }
  throw new Error('imported without errors');
}

describe('round trip', () => {
  it('JSONL: smoke.yaml\'s questions, one object per line, load back as they were', async () => {
    const file = write('smoke-questions.jsonl', SMOKE.questions.map((q) => JSON.stringify(q)).join('\n') + '\n');
    expect(importFile(file)).toMatch(/^wrote .*smoke-questions\.yaml: suite smoke-questions, 12 questions; try it on the emulator with npx dsbench run /);
    const out = file.replace(/\.jsonl$/, '.yaml');
    const text = readFileSync(out, 'utf8');
    expect(text.split('\n')[0]).toMatch(/^# yaml-language-server: \$schema=(\.\.\/)+.*suites\/suite\.schema\.json$/);
    const imported = await loadSuite(out);
    const original = await loadSuite(new URL('../../suites/smoke.yaml', import.meta.url).pathname);
    expect(imported.suite.questions).toEqual(original.suite.questions);
  });

  it('CSV: one row per question, lists one per line of a cell, expect fields as columns', async () => {
    const expectFields = [...new Set(SMOKE.questions.flatMap((q) => Object.keys(q.expect ?? {})))];
    const fields = ['id', 'question', 'tags', 'followups', ...expectFields];
    const list = (v: unknown) => (v === undefined ? '' : Array.isArray(v) ? v.join('\n') : String(v));
    const rows = SMOKE.questions.map((q) => [
      q.id,
      q.question,
      list(q.tags),
      list(q.followups?.map((f) => (typeof f === 'string' ? f : (f as { question: string }).question))),
      ...fields.slice(4).map((f) => list(q.expect?.[f])),
    ]);
    const file = write('Smoke Sheet.csv', csv([fields, ...rows]));
    importFile(file, { name: 'smoke-sheet' });
    const imported = await loadSuite(path.join(path.dirname(file), 'Smoke Sheet.yaml'));
    const original = await loadSuite(new URL('../../suites/smoke.yaml', import.meta.url).pathname);
    // A CSV cell holds a follow-up's text only: its own expect stays behind.
    const expected = original.suite.questions.map((q) => ({ ...q, ...(q.followups && { followups: q.followups.map((f) => ({ text: f.text, expect: {} })) }) }));
    expect(imported.suite.name).toBe('smoke-sheet');
    expect(imported.suite.questions).toEqual(expected);
  });
});

describe('bad rows', () => {
  it('CSV: every problem at once, at its line and the column\'s number; nothing written', () => {
    const file = write(
      'bad.csv',
      [
        'id,question,tags,minScore,contans',
        'q1,Where is retry?,http,0.5,x', // minScore without rubric or reference
        'q 2,Where is backoff?,,,',
        'q3,,http,,',
        'q1,"A question over',
        'two lines",,abc,',
        'q5,Where?,,,,extra',
        '',
      ].join('\n'),
    );
    expect(problems(file)).toEqual([
      `${file}:1:5: contans: unknown column "contans" (did you mean "contains"?)`,
      `${file}:2:4: minScore: needs a rubric or a reference to grade against`,
      `${file}:3:1: id: "q 2" is not a valid id; use letters, digits, ".", "_" and "-"`,
      `${file}:4:1: missing required field "question"`,
      `${file}:5:4: minScore: expected a number, got a string ("abc")`,
      `${file}:7:1: the row has 6 fields, the header 5; quote a cell that holds a comma`,
    ]);
    expect(() => readFileSync(file.replace(/\.csv$/, '.yaml'))).toThrow();
  });

  it('JSONL: syntax errors, unknown keys, bad values and duplicate ids, at line:col', () => {
    const file = write(
      'bad.jsonl',
      [
        '{"id": "a", "question": "Where?", "tags": ["x"]}',
        '{"id": "b", "question": "Where?", "expect": {"state": "done"}}',
        '{"id": "a", "question": "Again?"}',
        '{"id": "c", "question": "Where?", "maxCredits": -1, "tagz": []}',
        '{"id": "d", question: "Where?"}',
        '["not", "an", "object"]',
      ].join('\n'),
    );
    expect(problems(file)).toEqual([
      `${file}:2:55: expect.state: must be one of "completed", "error", "canceled", "timeout", got a string ("done")`,
      `${file}:3:8: id: duplicate id "a", first used on line 1; ids must be unique`,
      `${file}:4:49: maxCredits: must be at least 0, got -1`,
      `${file}:4:53: tagz: unknown field "tagz" (did you mean "tags"?)`,
      expect.stringMatching(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:5:13: invalid JSON: `)),
      `${file}:6:1: each line must be a JSON object such as {"id": "q1", "question": "Where is ...?"}`,
    ]);
  });

  it('through the CLI: exit 2 with the problems; an existing suite is not replaced without --force', async () => {
    const file = write('q.jsonl', '{"id": "a", "question": "Where?"}\n{"id": "a", "question": "Where?"}\n');
    const bad = await dsbenchHere(['suite', 'import', file]);
    expect(bad.code).toBe(ExitCode.usage);
    expect(bad.stderr).toContain(`${file}:2:8: id: duplicate id "a", first used on line 1`);
    writeFileSync(file, '{"id": "a", "question": "Where?"}\n');
    const ok = await dsbenchHere(['suite', 'import', file]);
    expect(ok.code, ok.stderr).toBe(ExitCode.ok);
    const again = await dsbenchHere(['suite', 'import', file]);
    expect(again.code).toBe(ExitCode.usage);
    expect(again.stderr).toContain('q.yaml exists; give another --out, or --force to replace it');
    expect((await dsbenchHere(['suite', 'import', file, '--force'])).code).toBe(ExitCode.ok);
  });
});
