import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSuite, parseSuite } from '../../src/config/load-suite.js';
import { UsageError } from '../../src/http/errors.js';

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
