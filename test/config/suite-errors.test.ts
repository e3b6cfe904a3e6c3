import { describe, expect, it } from 'vitest';
import { MAX_LISTED_PROBLEMS, SuiteError } from '../../src/errors/errors.js';
import { parseSuite } from '../../src/config/load-suite.js';
import { ExitCode } from '../../src/errors/exit-codes.js';

/** The error lines parseSuite reports for `text`. */
function problems(text: string, file = 'suites/smoke.yaml'): string[] {
  try {
    parseSuite(text, file);
  } catch (error) {
    expect(error).toBeInstanceOf(SuiteError);
    expect((error as SuiteError).exitCode).toBe(ExitCode.usage);
    return (error as Error).message.split('\n');
  }
  throw new Error('the suite parsed without errors');
}

const lines = (...l: string[]) => `${l.join('\n')}\n`;

describe('suite errors in YAML', () => {
  it('names unknown fields with the closest known name, at the key', () => {
    const text = lines(
      'name: smoke',
      'defaults:',
      '  concurency: 3',
      'questions:',
      '  - id: a',
      '    question: Where?',
      '    expect:',
      '      maxCredit: 10',
      '      frobnicate: 1',
    );
    expect(problems(text)).toEqual([
      'suites/smoke.yaml:3:3: defaults.concurency: unknown field "concurency" (did you mean "concurrency"?)',
      'suites/smoke.yaml:8:7: questions[0].expect.maxCredit: unknown field "maxCredit" (did you mean "maxCredits"?)',
      'suites/smoke.yaml:9:7: questions[0].expect.frobnicate: unknown field "frobnicate"; the fields here are ' +
        'contains, notContains, matches, sourcesInclude, state, errorCode, rubric, reference, minScore, cites, minCitationValidity, ' +
        'citesRecall, number, maxCredits, maxTotalTokens, maxSeconds',
    ]);
  });

  it('reports unknown fields inside an object follow-up and at the top level', () => {
    const text = lines(
      'name: smoke',
      'question: oops',
      'questions:',
      '  - id: a',
      '    question: Where?',
      '    followups:',
      '      - question: Then?',
      '        expext: { contains: x }',
    );
    expect(problems(text)).toEqual([
      'suites/smoke.yaml:2:1: question: unknown field "question" (did you mean "questions"?)',
      'suites/smoke.yaml:8:9: questions[0].followups[0].expext: unknown field "expext" (did you mean "expect"?)',
    ]);
  });

  it('points at the second of two duplicate ids and names the line of the first', () => {
    const text = lines(
      'name: smoke',
      'questions:',
      '  - id: retry',
      '    question: Where?',
      'searches:',
      '  - id: other',
      '    query: a',
      '  - id: retry',
      '    query: b',
    );
    expect(problems(text)).toEqual([
      'suites/smoke.yaml:8:9: searches[1].id: duplicate id "retry", first used by questions[0].id at line 3; ids must be unique across questions and searches',
    ]);
  });

  it('explains wrong types, missing fields, bad values and enums', () => {
    const text = lines(
      'name: Smoke Test',
      'defaults:',
      '  api: verisoned',
      '  repeats: 0',
      '  concurrency: 1.5',
      'questions:',
      '  - id: a b',
      '    question: ""',
      '    tags: http',
      '    followups: [5]',
      '    expect: { contains: 4, maxCredits: -1, state: done }',
      '  - id: b',
      'searches:',
      '  - id: s',
      '    query: q',
      '    chunkMatches: yes',
      '    display: -2',
    );
    expect(problems(text)).toEqual([
      'suites/smoke.yaml:1:7: name: "Smoke Test" is not a valid name; use lower-case letters, digits, ".", "_" and "-"',
      'suites/smoke.yaml:3:8: defaults.api: must be one of "legacy", "versioned", got a string ("verisoned") (did you mean "versioned"?)',
      'suites/smoke.yaml:4:12: defaults.repeats: must be at least 1, got 0',
      'suites/smoke.yaml:5:16: defaults.concurrency: expected an integer, got a number (1.5)',
      'suites/smoke.yaml:7:9: questions[0].id: "a b" is not a valid id; use letters, digits, ".", "_" and "-"',
      'suites/smoke.yaml:8:15: questions[0].question: must not be empty',
      'suites/smoke.yaml:9:11: questions[0].tags: expected a list, got a string ("http")',
      'suites/smoke.yaml:10:17: questions[0].followups[0]: expected a string or an object (key: value pairs), got an integer (5)',
      'suites/smoke.yaml:11:25: questions[0].expect.contains: expected a string or a list, got an integer (4)',
      'suites/smoke.yaml:11:40: questions[0].expect.maxCredits: must be at least 0, got -1',
      'suites/smoke.yaml:11:51: questions[0].expect.state: must be one of "completed", "error", "canceled", "timeout", got a string ("done")',
      'suites/smoke.yaml:12:5: questions[1]: missing required field "question"',
      'suites/smoke.yaml:16:19: searches[0].chunkMatches: expected true or false, got a string ("yes")',
      'suites/smoke.yaml:17:14: searches[0].display: must be at least -1, got -2',
    ]);
  });

  it('reports a value that fits one shape of a field through that shape', () => {
    const text = lines(
      'name: smoke',
      'questions:',
      '  - id: a',
      '    question: Where?',
      '    followups: [{ question: 5 }]',
      '    expect: { contains: [retry, 2], maxSeconds: .inf }',
    );
    expect(problems(text)).toEqual([
      'suites/smoke.yaml:5:29: questions[0].followups[0].question: expected a string, got an integer (5)',
      'suites/smoke.yaml:6:33: questions[0].expect.contains[1]: expected a string, got an integer (2)',
      'suites/smoke.yaml:6:49: questions[0].expect.maxSeconds: expected a number, got Infinity',
    ]);
  });

  it('limits the length of a question', () => {
    const text = lines('name: smoke', 'questions:', `  - { id: a, question: ${'x'.repeat(100_001)} }`);
    expect(problems(text)).toEqual(['suites/smoke.yaml:3:24: questions[0].question: is 100001 characters long; the limit is 100000']);
  });

  it('reports bad durations and invalid regexes where they are written', () => {
    const text = lines(
      'name: smoke',
      'defaults:',
      '  timeout: 5 minutes',
      '  poll: { min: 20s, max: 10s }',
      'questions:',
      '  - id: a',
      '    question: Where?',
      '    timeout: 0',
      '    expect:',
      '      matches: ["retr(y", /ok/i, /x/g]',
    );
    const help = 'is not a positive duration; use a number of seconds (90) or a string with units: 500ms, 90s, 5m, 1h, 1m30s';
    expect(problems(text)).toEqual([
      `suites/smoke.yaml:3:12: defaults.timeout: "5 minutes" ${help}`,
      'suites/smoke.yaml:4:16: defaults.poll.min: must not be longer than max',
      `suites/smoke.yaml:8:14: questions[0].timeout: 0 ${help}`,
      'suites/smoke.yaml:10:17: questions[0].expect.matches[0]: invalid regular expression "retr(y": Unterminated group',
      'suites/smoke.yaml:10:34: questions[0].expect.matches[2]: invalid regular expression "/x/g": unsupported flags "g" (allowed: d, i, m, s, u, v); ' +
        'text written /…/ is read as /source/flags, so escape a leading slash as \\/ to match it literally',
    ]);
  });

  it('checks fields against each other', () => {
    const text = lines(
      'name: smoke',
      'questions:',
      '  - id: a',
      '    question: Where?',
      '    expect: { state: completed, errorCode: QUOTA_EXCEEDED }',
      'searches:',
      '  - id: s',
      '    query: q',
      '    expect: { count: 5, minCount: 10, maxCount: 1 }',
    );
    expect(problems(text)).toEqual([
      'suites/smoke.yaml:5:22: questions[0].expect.state: must be "error" (or left out) when errorCode is set, got "completed"',
      'suites/smoke.yaml:9:22: searches[0].expect.count: is outside minCount..maxCount, so no result could pass',
      'suites/smoke.yaml:9:35: searches[0].expect.minCount: must not be more than maxCount (1)',
    ]);
  });

  it('rejects an empty suite and an empty file', () => {
    expect(problems('name: smoke\nquestions: []\n')).toEqual(['suites/smoke.yaml:1:1: empty suite: add at least one item under questions or searches']);
    expect(problems('# nothing yet\n')).toEqual([
      'suites/smoke.yaml:1:1: the suite is empty; it needs a name and at least one question or search (see suites/example.yaml)',
    ]);
    expect(problems('- a\n- b\n')).toEqual(['suites/smoke.yaml:1:1: expected an object (key: value pairs), got a list']);
  });

  it('reports YAML syntax errors with the parser position, and duplicate keys', () => {
    expect(problems(lines('name: smoke', 'questions:', '  - id: a', '    question: "open'))).toEqual([
      'suites/smoke.yaml:5:1: invalid YAML: Missing closing "quote',
    ]);
    expect(problems(lines('name: smoke', '---', 'name: again'))).toEqual([
      'suites/smoke.yaml:2:1: invalid YAML: a suite file holds one document; remove the "---" that starts a second one',
    ]);
    expect(problems(lines('name: smoke', 'name: again'))).toEqual([
      'suites/smoke.yaml:2:1: invalid YAML: duplicate key name; each key may appear only once per object',
    ]);
  });

  it('lists at most MAX_LISTED_PROBLEMS problems and counts the rest', () => {
    const questions = Array.from({ length: 25 }, (_, i) => `  - { id: q${i}, question: x, bogus: 1 }`);
    const reported = problems(lines('name: smoke', 'questions:', ...questions));
    expect(reported).toHaveLength(MAX_LISTED_PROBLEMS + 1);
    expect(reported[0]).toBe('suites/smoke.yaml:3:28: questions[0].bogus: unknown field "bogus"; the fields here are id, question, followups, tags, repeats, timeout, expect, generated');
    expect(reported.at(-1)).toBe('suites/smoke.yaml: … and 5 more problems');
  });

  it('rejects files that are neither YAML nor JSON', () => {
    expect(() => parseSuite('name: x', 'suites/smoke.toml')).toThrow(
      'suites/smoke.toml: unsupported suite file type ".toml"; a suite is a .yaml, .yml or .json file',
    );
  });
});

describe('suite errors in JSON', () => {
  it('maps field paths to line and column', () => {
    const text = lines(
      '{',
      '  "name": "smoke",',
      '  "questions": [',
      '    { "id": "a", "question": "Where?", "expect": { "maxCredit": 1 } },',
      '    { "id": "a", "question": 7 }',
      '  ]',
      '}',
    );
    expect(problems(text, 'suites/smoke.json')).toEqual([
      'suites/smoke.json:4:52: questions[0].expect.maxCredit: unknown field "maxCredit" (did you mean "maxCredits"?)',
      'suites/smoke.json:5:13: questions[1].id: duplicate id "a", first used by questions[0].id at line 4; ids must be unique across questions and searches',
      'suites/smoke.json:5:30: questions[1].question: expected a string, got an integer (7)',
    ]);
  });

  it('reports syntax errors with their position', () => {
    expect(problems(lines('{', '  "name": "smoke",', '}'), 'suites/smoke.json')).toEqual([
      'suites/smoke.json:3:1: invalid JSON: Expected double-quoted property name',
    ]);
    expect(problems(lines('{', '  "name": tru', '}'), 'suites/smoke.json')).toEqual([
      expect.stringMatching(/^suites\/smoke\.json:2:11: invalid JSON: (Unexpected token|Expected)/),
    ]);
    expect(problems('{"name": "smoke"', 'suites/smoke.json')).toEqual([expect.stringMatching(/^suites\/smoke\.json:1:17: invalid JSON: /)]);
    expect(problems('  \n', 'suites/smoke.json')).toEqual([expect.stringContaining('suites/smoke.json:1:1: the suite is empty')]);
  });

  it('reports duplicate keys, which JSON.parse would let through', () => {
    expect(problems(lines('{', '  "name": "smoke",', '  "name": "again"', '}'), 'suites/smoke.json')).toEqual([
      'suites/smoke.json:3:3: invalid JSON: duplicate key "name"; each key may appear only once per object',
    ]);
  });

  it('accepts a $schema property', () => {
    const text = JSON.stringify({ $schema: './suite.schema.json', name: 'smoke', searches: [{ id: 's', query: 'q' }] });
    expect(parseSuite(text, 'suites/smoke.json').resolved.searches).toHaveLength(1);
  });
});

describe('judge fields', () => {
  it('reports bad judge settings and expectations at their place', () => {
    const text = lines(
      'name: smoke',
      'judge:',
      '  endpoint: elsewhere',
      '  minScore: 2',
      'questions:',
      '  - id: a',
      '    question: Where?',
      '    expect:',
      '      minScore: 0.5',
      '      minCitationValidity: -1',
      '    followups:',
      '      - question: Then?',
      '        expect: { rubric: "" }',
    );
    expect(problems(text)).toEqual([
      'suites/smoke.yaml:3:13: judge.endpoint: must be one of "instance", "external", got a string ("elsewhere")',
      'suites/smoke.yaml:4:13: judge.minScore: must be at most 1, got 2',
      'suites/smoke.yaml:9:17: questions[0].expect.minScore: needs a rubric or a reference to grade against',
      'suites/smoke.yaml:10:28: questions[0].expect.minCitationValidity: must be at least 0, got -1',
      'suites/smoke.yaml:13:27: questions[0].followups[0].expect.rubric: must not be empty',
    ]);
  });

  it('parses rubric, reference, cites and the judge block', () => {
    const text = lines(
      'name: smoke',
      'judge: { model: m, preamble: Be strict., concurrency: 3 }',
      'questions:',
      '  - id: a',
      '    question: Where?',
      '    expect: { rubric: Names `RetryHandler`., reference: In lib., minScore: 0.7, cites: lib/a.js, minCitationValidity: 0.9 }',
    );
    const { resolved } = parseSuite(text, 'suites/smoke.yaml');
    expect(resolved.judge).toMatchObject({ model: 'm', preamble: 'Be strict.', concurrency: 3, endpoint: 'instance', explicit: true });
    expect(resolved.questions[0]?.expect).toMatchObject({ minScore: 0.7, cites: ['lib/a.js'], minCitationValidity: 0.9 });
  });
});

// The checks generated suites use (citesRecall, number) and their provenance: validated like every field.
describe('generated checks in a suite', () => {
  it('reports bad citesRecall and number checks at file:line:col', () => {
    const text = lines(
      'name: gen',
      'questions:',
      '  - id: a',
      '    question: Which files use `x`?',
      '    expect:',
      '      citesRecall: { files: [lib/a.js, lib/a.js], min: 0 }',
      '  - id: b',
      '    question: How many?',
      '    expect:',
      '      number: { expected: 3, tolerance: lots }',
      '  - id: c',
      '    question: Which?',
      '    expect:',
      '      citesRecall: { files: [], min: 1.5, share: 1 }',
      '    generated: { kind: guess, query: q, repository: r, revision: "", symbol: s, generatedAt: t, instance: emulator }',
    );
    expect(problems(text, 'gen.yaml')).toEqual([
      'gen.yaml:6:40: questions[0].expect.citesRecall.files[1]: "lib/a.js" is listed twice',
      'gen.yaml:6:56: questions[0].expect.citesRecall.min: must be more than 0 (a check that passes on nothing checks nothing)',
      'gen.yaml:10:41: questions[1].expect.number.tolerance: "lots" is not a tolerance; write a number (2) or a percentage ("10%")',
      'gen.yaml:14:29: questions[2].expect.citesRecall.files: needs at least one file',
      'gen.yaml:14:38: questions[2].expect.citesRecall.min: must be at most 1, got 1.5',
      'gen.yaml:14:43: questions[2].expect.citesRecall.share: unknown field "share"; the fields here are files, min',
      'gen.yaml:15:24: questions[2].generated.kind: must be one of "definition", "usage", "count", got a string ("guess")',
    ]);
  });

  it('parses the checks with a default tolerance of 0, and the provenance', () => {
    const text = lines(
      'name: gen',
      'generated: { by: dsbench 1, instance: emulator, seed: 7, generatedAt: "2026-01-01T00:00:00Z", repositories: [r], kinds: [count] }',
      'questions:',
      '  - id: a',
      '    question: How many files have `x`?',
      '    expect: { number: { expected: 3 }, citesRecall: { files: [lib/a.js], min: 0.5 } }',
      '    generated: { kind: count, query: q, repository: r, revision: "", symbol: x, generatedAt: t, instance: emulator }',
    );
    const { suite, resolved } = parseSuite(text, 'gen.yaml');
    expect(resolved.questions[0]?.expect).toMatchObject({ number: { expected: 3, tolerance: 0 }, citesRecall: { files: ['lib/a.js'], min: 0.5 } });
    expect(suite.questions[0]?.generated).toMatchObject({ kind: 'count', symbol: 'x' });
    expect(suite.generated?.seed).toBe(7);
  });
});
