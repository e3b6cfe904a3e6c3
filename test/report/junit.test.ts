import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_THRESHOLDS } from '../../src/report/compare/gates.js';
import { compareRuns } from '../../src/report/compare/compare.js';
import { writeReport } from '../../src/report/report.js';
import { completed, failed, parseCsv, question, recordRun, search, searchRecord, useTempStore, type TempStore } from './fixtures.js';

// JUnit XML as CI systems read it: well-formed, one <testsuites> root, counts that match the cases, a
// test case per item (and per gate), <failure> for a check, <error> for an item that got no judgeable answer.

/** A strict enough well-formedness check: balanced tags, quoted attributes, known entities, one root. */
function parseXml(xml: string): Array<{ tag: string; attrs: Record<string, string>; depth: number; text: string }> {
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
  const body = xml.slice(xml.indexOf('?>') + 2);
  // eslint-disable-next-line no-control-regex
  expect(body).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
  expect(body.replace(/&(amp|lt|gt|quot|apos);/g, '')).not.toContain('&');
  const elements: Array<{ tag: string; attrs: Record<string, string>; depth: number; text: string }> = [];
  const stack: string[] = [];
  const re = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/g;
  let roots = 0;
  let consumed = 0;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    expect(m.index).toBe(consumed);
    consumed = m.index + m[0].length;
    if (m[5] !== undefined) {
      if (stack.length === 0) expect(m[5].trim()).toBe('');
      else if (elements.length) elements[elements.length - 1]!.text += m[5];
      continue;
    }
    const [, close, tag, attrText, selfClose] = m;
    if (close) {
      expect(stack.pop()).toBe(tag);
      continue;
    }
    if (stack.length === 0) roots++;
    const attrs: Record<string, string> = {};
    const decode = (v: string) => v.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
    for (const a of attrText!.matchAll(/([\w:-]+)="([^"]*)"/g)) attrs[a[1]!] = decode(a[2]!);
    elements.push({ tag: tag!, attrs, depth: stack.length, text: '' });
    if (!selfClose) stack.push(tag!);
  }
  expect(consumed).toBe(body.length);
  expect(stack).toEqual([]);
  expect(roots).toBe(1);
  return elements;
}

/** The schema's rules CI systems rely on: counts match, required attributes, at most one outcome per case. */
function checkJunit(xml: string) {
  const els = parseXml(xml);
  expect(els[0]!.tag).toBe('testsuites');
  const cases = els.filter((e) => e.tag === 'testcase');
  for (const c of cases) {
    expect(c.attrs.classname).toBeTruthy();
    expect(c.attrs.name).toBeTruthy();
    expect(c.attrs.time).toMatch(/^\d+\.\d{3}$/);
  }
  const suites = els.filter((e) => e.tag === 'testsuite');
  for (const s of suites) expect(Object.keys(s.attrs)).toEqual(expect.arrayContaining(['name', 'tests', 'failures', 'errors', 'skipped', 'time', 'timestamp']));
  const failures = els.filter((e) => e.tag === 'failure');
  const errors = els.filter((e) => e.tag === 'error');
  expect(Number(els[0]!.attrs.tests)).toBe(cases.length);
  expect(Number(els[0]!.attrs.failures)).toBe(failures.length);
  expect(Number(els[0]!.attrs.errors)).toBe(errors.length);
  expect(suites.reduce((n, s) => n + Number(s.attrs.tests), 0)).toBe(cases.length);
  return { els, cases, failures, errors };
}

const one = [{ name: 'prod', url: 'https://sg.example.com', api: 'legacy' as const, emulated: false }];

describe('report.md for a CI job summary', () => {
  let t: TempStore;
  useTempStore((s) => (t = s));

  it('has a per-question table, questions with failed checks first; the terminal summary leaves it out', async () => {
    recordRun(
      t.store,
      [
        { item: question('alpha'), turns: [completed({ serverMs: 1000, credits: 2 })], expectations: [{ name: 'contains', passed: true, reason: 'ok' }] },
        { item: question('alpha', 'prod', 1), turns: [completed({ serverMs: 3000, credits: 4 })], expectations: [{ name: 'contains', passed: true, reason: 'ok' }] },
        { item: question('zulu'), turns: [completed()], expectations: [{ name: 'contains', passed: false, reason: 'missing' }] },
        { item: question('mike'), turns: [failed()] },
      ],
      { targets: one },
    );
    const result = await writeReport({ db: t.db, run: 'latest', out: path.join(t.dir, 'r'), formats: new Set(['md']) });
    const from = result.markdown.indexOf('### Per question');
    const table = result.markdown.slice(from, result.markdown.indexOf('###', from + 3));
    const lines = table.split('\n').filter((l) => l.startsWith('| prod'));
    expect(lines).toEqual([
      '| prod | zulu | 1 | 0 | 1 | 1 | 1 | 0 | 1.0 s | 2 |',
      '| prod | mike | 1 | 0 | 0 | 1 | 0 | 1 | 0.2 s | 0 |',
      '| prod | alpha | 2 | 2 | 0 | 2 | 2 | 0 | 1.0 s | 6 |',
    ]);
    expect(result.text).not.toContain('Per question');
  });
});

describe('JUnit XML', () => {
  let t: TempStore;
  useTempStore((s) => (t = s));

  it('a run: a case per item, checks as failures with their reasons, unjudgeable items as errors', async () => {
    recordRun(
      t.store,
      [
        { item: question('passes'), turns: [completed()], expectations: [{ name: 'contains', passed: true, reason: 'found "retry"' }] },
        { item: question('wrong-answer'), turns: [completed(), completed({ answer: 'no idea' })], expectations: [{ name: 'contains', passed: false, reason: 'missing "backoff" <in> the answer & more', turn: 1 }] },
        { item: question('expected-error'), turns: [failed('TOKEN_LIMIT_EXCEEDED')], expectations: [{ name: 'state', passed: true, reason: 'error as expected' }] },
        {
          item: question('unreachable'),
          turns: [{ state: 'client_error', text: 'q', clientError: 'HTTP 502 from POST /.api/deepsearch/v1 token sgp_0123456789abcdef0123 \u0007', wallMs: 30, polls: 0 }],
        },
        { item: question('never-ran'), leave: 'pending' },
        { item: search('count'), search: searchRecord(), expectations: [{ name: 'minCount', passed: false, reason: 'counted 10, expected at least 20' }] },
        { item: search('cut'), search: searchRecord({ verdict: 'truncated', error: 'stream ended before done' }) },
      ],
      { targets: one, status: 'aborted' },
    );
    const file = path.join(t.dir, 'ci', 'junit.xml');
    await writeReport({ db: t.db, run: 'latest', out: path.join(t.dir, 'r'), formats: new Set(['md']), junit: file });
    const xml = fs.readFileSync(file, 'utf8');
    const { cases, failures, errors } = checkJunit(xml);
    expect(cases.map((c) => c.attrs.name)).toEqual(['passes [repeat 0]', 'wrong-answer [repeat 0]', 'expected-error [repeat 0]', 'unreachable [repeat 0]', 'never-ran [repeat 0]', 'count [repeat 0]', 'cut [repeat 0]']);
    expect(cases[0]!.attrs.classname).toBe('smoke.prod.questions');
    expect(failures.map((f) => f.attrs.message)).toEqual(['contains: missing "backoff" <in> the answer & more', 'minCount: counted 10, expected at least 20']);
    expect(xml).toContain('message="contains: missing &quot;backoff&quot; &lt;in&gt; the answer &amp; more"');
    expect(errors.map((e) => e.attrs.type)).toEqual(['client_error', 'pending', 'truncated']);
    expect(errors[0]!.attrs.message).toContain('HTTP 502 from POST /.api/deepsearch/v1');
    expect(errors[1]!.attrs.message).toContain('the run stopped first');
    expect(xml).not.toContain('sgp_0123456789abcdef0123');
    // The expected error passed: neither failure nor error.
    expect(xml).toMatch(/name="expected-error \[repeat 0\]" time="0\.200"\/>/);
  });

  it('a JUnit file that cannot be written fails the report and the comparison, naming it; the files before it are whole', async () => {
    recordRun(t.store, [{ item: question('a'), turns: [completed()] }, { item: search('s'), search: searchRecord() }], { targets: one });
    recordRun(t.store, [{ item: question('a'), turns: [completed()] }, { item: search('s'), search: searchRecord() }], { targets: one });
    const blocker = path.join(t.dir, 'a-file');
    fs.writeFileSync(blocker, '');
    const file = path.join(blocker, 'junit.xml');
    const out = path.join(t.dir, 'r');
    const now = new Date('2025-01-01T00:00:00Z');
    await expect(writeReport({ db: t.db, run: 'latest', out, formats: new Set(['csv', 'md']), junit: file, now })).rejects.toThrow(/EEXIST.*a-file/);
    expect(fs.existsSync(path.join(out, 'report.md'))).toBe(false);
    const whole = await writeReport({ db: t.db, run: 'latest', out: path.join(t.dir, 'whole'), formats: new Set(['csv']), now });
    for (const written of whole.files) expect(fs.readFileSync(path.join(out, path.basename(written)), 'utf8'), written).toBe(fs.readFileSync(written, 'utf8'));
    const compared = path.join(t.dir, 'c');
    await expect(compareRuns({ baseline: { db: t.db, run: 'latest~1' }, candidate: { db: t.db, run: 'latest' }, out: compared, junit: file })).rejects.toThrow(/EEXIST.*a-file/);
    expect(parseCsv(fs.readFileSync(path.join(compared, 'compare.csv'), 'utf8'))).toHaveLength(3);
    expect(fs.readFileSync(path.join(compared, 'compare.md'), 'utf8')).toContain('dsbench compare');
  });

  it('a comparison: a case per gate and per pair, failing exactly as the gates do', async () => {
    const items = (bad: boolean) => [
      { item: question('a'), turns: [completed()] },
      { item: question('b'), turns: [bad ? failed() : completed()] },
      { item: question('c'), turns: [completed()], expectations: [{ name: 'contains', passed: !bad, reason: bad ? 'missing' : 'found' }] },
    ];
    recordRun(t.store, items(false), { targets: one });
    recordRun(t.store, items(true), { targets: one });
    const file = path.join(t.dir, 'compare.xml');
    const result = await compareRuns({
      baseline: { db: t.db, run: 'latest~1' },
      candidate: { db: t.db, run: 'latest' },
      out: path.join(t.dir, 'c'),
      junit: file,
      thresholds: { ...DEFAULT_THRESHOLDS, failOn: new Set(['any-new-error', 'verdict-changes']) },
    });
    expect(result.summary.failed).toBe(true);
    const { els, cases, failures, errors } = checkJunit(fs.readFileSync(file, 'utf8'));
    expect(els.filter((e) => e.tag === 'testsuite').map((s) => s.attrs.name)).toEqual(['gates', 'pairs']);
    const gates = cases.filter((c) => c.attrs.classname === 'compare.gates').map((c) => c.attrs.name);
    // Three pairs are fewer than --min-pairs: a gated metric measured on nothing is an error case too (exit 8).
    expect(result.nothingCompared).toBeTruthy();
    expect(gates).toEqual([...result.summary.gates.map((g) => g.name), 'verdict', 'something to compare']);
    expect(result.verdict).toBe('regressed');
    expect(errors.map((e) => e.attrs.type)).toEqual(['nothing_compared']);
    expect(cases.filter((c) => c.attrs.classname !== 'compare.gates').map((c) => c.attrs.name)).toEqual(['a [repeat 0] turn 0', 'b [repeat 0] turn 0', 'c [repeat 0] turn 0']);
    // Both event gates failed (one flip is within noise for the default rate gates); b is the new error, c the new failing check.
    expect(failures.map((f) => f.attrs.type).sort()).toEqual(['gate', 'gate', 'new_error', 'new_failure', 'regressed']);
    expect(result.files).toContain(file);
  });

  it('a comparison whose gates are off fails no case', async () => {
    recordRun(t.store, [{ item: question('b'), turns: [completed()] }], { targets: one });
    recordRun(t.store, [{ item: question('b'), turns: [failed()] }], { targets: one });
    const file = path.join(t.dir, 'compare.xml');
    const result = await compareRuns({
      baseline: { db: t.db, run: 'latest~1' },
      candidate: { db: t.db, run: 'latest' },
      out: path.join(t.dir, 'c'),
      junit: file,
      thresholds: { latency: null, credits: null, tokens: null, toolCalls: null, passRateDrop: 1, errorRateRise: 1, minPairs: 5, failOn: new Set() },
    });
    expect(result.summary.failed).toBe(false);
    expect(checkJunit(fs.readFileSync(file, 'utf8')).failures).toEqual([]);
  });
});
