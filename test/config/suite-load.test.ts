import { createHash } from 'node:crypto';
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSuite, parseSuite } from '../../src/config/load-suite.js';
import { UsageError } from '../../src/errors/errors.js';

const EXAMPLE = path.resolve(import.meta.dirname, '../../suites/example.yaml');

describe('loadSuite', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'dsbench-suite-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads the example suite with its hash, text and absolute path', async () => {
    const loaded = await loadSuite(path.relative(process.cwd(), EXAMPLE));
    const bytes = await readFile(EXAMPLE);
    expect(loaded.path).toBe(EXAMPLE);
    expect(loaded.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(loaded.text).toBe(bytes.toString('utf8'));
    expect(loaded.suite.name).toBe('example');
    expect(loaded.resolved.questions.map((q) => q.id)).toEqual(['zod-json-schema', 'undici-retry-policy', 'zod-token-limit']);
    expect(loaded.resolved.searches.map((s) => s.id)).toEqual(['fetch-count-all', 'undici-retry-handler']);
  });

  it('says which file is missing', async () => {
    const missing = path.join(dir, 'no-such-suite.yaml');
    await expect(loadSuite(missing)).rejects.toThrow(new UsageError(`suite file not found: ${missing}; check the path`));
    await expect(loadSuite('no/such/suite.yaml')).rejects.toThrow(
      `suite file not found: no/such/suite.yaml (${path.resolve('no/such/suite.yaml')}); check the path`,
    );
  });

  it('rejects a directory and an unsupported extension', async () => {
    const folder = path.join(dir, 'suites.yaml');
    await mkdir(folder);
    await expect(loadSuite(folder)).rejects.toThrow(`${folder} is a directory`);
    await expect(loadSuite(path.join(dir, 'suite.txt'))).rejects.toThrow('unsupported suite file type ".txt"');
  });

  it('reads JSON files and ignores a byte order mark', async () => {
    const file = path.join(dir, 'smoke.json');
    await writeFile(file, `\uFEFF${JSON.stringify({ name: 'smoke', searches: [{ id: 's', query: 'q' }] })}`);
    const loaded = await loadSuite(file);
    expect(loaded.resolved.searches[0]?.query).toBe('q');
    expect(loaded.text.startsWith('\uFEFF')).toBe(true);
  });

  it('refuses bytes that are not UTF-8 at file:line:col of the first of them; a literal U+FFFD before it is text', async () => {
    const file = path.join(dir, 'latin1.yaml');
    const head = Buffer.from('name: latin1\nquestions:\n  - id: q\n    question: "Wo ist \ufffd, und ', 'utf8');
    // "Größe" saved as Latin-1: 0xF6 and 0xDF are not UTF-8.
    await writeFile(file, Buffer.concat([head, Buffer.from([0x47, 0x72, 0xf6, 0xdf, 0x65]), Buffer.from('?"\n')]));
    const error = await loadSuite(file).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(`${file}:4:32: not UTF-8 (byte 0xf6 at offset ${head.length + 2}): save the file as UTF-8`);
  });
});

describe('YAML features', () => {
  it('lets items share blocks through anchors and merge keys', () => {
    const { resolved } = parseSuite(
      [
        'name: smoke',
        'questions:',
        '  - id: a',
        '    question: First?',
        '    expect: &common { sourcesInclude: github.com/npm/undici, maxCredits: 5 }',
        '  - id: b',
        '    question: Second?',
        '    expect: { <<: *common, contains: retry }',
      ].join('\n'),
      'smoke.yml',
    );
    expect(resolved.questions[1]?.expect).toEqual({ sourcesInclude: ['github.com/npm/undici'], maxCredits: 5, contains: ['retry'] });
  });
});

describe('bounds', () => {
  it('accepts 2,000 merge keys of one anchor', () => {
    const text = [
      'name: merges',
      'questions:',
      '  - { id: q0, question: "Where is f0?", expect: &defaults { state: completed, maxCredits: 5 } }',
      ...Array.from({ length: 2000 }, (_, i) => `  - { id: q${i + 1}, question: "Where is f${i + 1}?", expect: { <<: *defaults, contains: f${i + 1} } }`),
    ].join('\n');
    const { resolved } = parseSuite(text, 'merges.yaml');
    expect(resolved.questions).toHaveLength(2001);
    expect(resolved.questions[2000]?.expect).toMatchObject({ state: 'completed', maxCredits: 5, contains: ['f2000'] });
  });

  it('still refuses an alias bomb (nested anchors), at once', () => {
    // Ten levels of nine aliases each: 9^9 strings if expanded.
    const levels = ['&a [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let i = 1; i < 10; i++) levels.push(`&${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(', ')}]`);
    const bomb = `name: bomb\nquestions:\n  - id: q\n    question: Where?\n    tags:\n${levels.map((l) => `      - ${l}`).join('\n')}\n`;
    const started = performance.now();
    expect(() => parseSuite(bomb, 'bomb.yaml')).toThrow(/^bomb\.yaml:1:1: invalid YAML: .*resource exhaustion/);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('refuses repeats x questions beyond what one run plans, with the numbers', () => {
    const text = 'name: huge\ndefaults:\n  repeats: 100000000\nquestions:\n  - { id: q, question: Where? }\n';
    expect(() => parseSuite(text, 'huge.yaml')).toThrow(
      'huge.yaml:3:12: the run would plan 100,000,000 items (1 question and 0 searches x their repeats x 1 target); one run plans at most 2,000,000: lower repeats or split the suite',
    );
  });

  it('refuses a suite file larger than the bound before reading it, with its size', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'dsbench-size-')), 'big.yaml');
    // Sparse: no disk or memory is spent on the test's 40 MB.
    writeFileSync(file, 'name: big\n');
    truncateSync(file, 40 * 1024 * 1024);
    await expect(loadSuite(file)).rejects.toThrow(
      `suite file ${file} is 41,943,040 bytes; dsbench reads suites of at most 16,777,216 bytes (16 MB): split it into several suites`,
    );
  });
});

