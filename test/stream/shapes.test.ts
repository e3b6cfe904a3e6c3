import { afterEach, describe, expect, it } from 'vitest';
import { MatchBatch } from '../../src/stream/batch.js';
import { countObjects } from '../../src/stream/count-objects.js';
import { KNOWN_TYPES } from '../../src/stream/match-types.js';
import { MatchScanner } from '../../src/stream/scan-matches.js';
import { useInterpreter } from '../../src/stream/shapes.js';
import { commitMatch, contentMatch, lineMatch, pathMatch, prng, repoMatch, symbolMatch } from './fixtures.js';

// The learned-shape path of MatchScanner must count exactly what the general path and the JSON.parse
// fallback count, and reject what they reject. Every test runs with generated code and with the interpreter.

function summary(batch: MatchBatch) {
  return {
    counted: Object.fromEntries(KNOWN_TYPES.map((t, i) => [t, batch.counted[i]])),
    objects: batch.objects,
    invalid: batch.invalid,
    unknown: Object.fromEntries(batch.unknown ?? []),
    repos: [...batch.repoKeys.subarray(0, batch.repoLength)],
    files: [...batch.fileKeys.subarray(0, batch.fileLength)],
  };
}

/** JSON text as the decoder hands it over: UTF-8 bytes read as latin1. */
const bytes = (json: string): string => Buffer.from(json, 'utf8').toString('latin1');

function scan(scanner: MatchScanner, json: string): ReturnType<typeof summary> | undefined {
  const batch = new MatchBatch();
  return scanner.scan(bytes(json), batch) ? summary(batch) : undefined;
}

function reference(json: string): ReturnType<typeof summary> {
  const batch = new MatchBatch();
  countObjects(JSON.parse(json) as unknown[], batch);
  return summary(batch);
}

afterEach(() => useInterpreter(false));

describe.each([
  ['generated code', false],
  ['the interpreter', true],
])('learned shapes, with %s', (_name, interpret) => {
  const fresh = (): MatchScanner => {
    useInterpreter(interpret);
    return new MatchScanner();
  };

  it('learns the shapes of a stream and then counts with them, exactly as the general path', () => {
    const scanner = fresh();
    const general = new MatchScanner({ learn: false });
    const random = prng(3);
    for (let event = 0; event < 30; event++) {
      const batch = Array.from({ length: 20 }, (_, i) => {
        const repo = `github.com/org/r${i % 3}`;
        const n = Math.floor(random() * 4);
        return [
          contentMatch(repo, `dir/ü${i}.go`, [n, 1 + (i % 2)]),
          lineMatch(repo, `l${i}.ts`, [n + 1]),
          pathMatch(repo, `p${i}`),
          repoMatch(repo),
          symbolMatch(repo, `s${i}.go`, n),
          commitMatch(repo, n),
          { type: 'person', handle: `h${i}` },
        ][i % 7];
      });
      const json = JSON.stringify(batch);
      expect(scan(scanner, json)).toEqual(reference(json));
      expect(scan(general, json)).toEqual(reference(json));
    }
    expect(scanner.shapeCount).toBeGreaterThan(5);
    expect(scanner.shaped).toBeGreaterThan(scanner.general * 10);
    expect(general.shaped).toBe(0);
  });

  it('falls back to the general path for every variation of a learned shape', () => {
    const base = contentMatch('github.com/org/repo', 'dir/a.go', [2, 1]);
    const variants: Record<string, unknown>[] = [
      { ...base, extra: 1 },
      { repository: base.repository, ...base },
      { ...base, repoStars: 1.5 },
      { ...base, repoStars: null },
      { ...base, branches: [] },
      { ...base, branches: ['main', 'dev'] },
      { ...base, hunks: [] },
      { ...base, chunkMatches: [] },
      { ...base, chunkMatches: null },
      { ...base, chunkMatches: [null, 5, { ranges: 'no' }] },
      { ...base, chunkMatches: [{ content: 'x', ranges: [] }] },
      { ...base, repository: 'with "quote" and \\ backslash' },
      { ...base, path: 'tab\there\u0001' },
      { ...base, type: 'path' },
      { ...base, type: 'diff' },
      { ...base, lineMatches: [{ line: 'l', lineNumber: 1, offsetAndLengths: [[1, 2]] }] },
    ];
    const scanner = fresh();
    const learn = JSON.stringify([base, base]);
    expect(scan(scanner, learn)).toEqual(reference(learn));
    expect(scanner.shapeCount).toBe(1);
    for (const variant of variants) {
      const json = JSON.stringify([base, variant, base]);
      expect(scan(scanner, json), json).toEqual(reference(json));
    }
    // Spellings of the same object that JSON.parse reads alike: blanks, escapes in keys and in values.
    const plain = JSON.stringify([base]);
    for (const json of [
      JSON.stringify([base], null, 1),
      plain.replace('"repoStars"', '"repo\\u0053tars"'),
      plain.replace('"type":"content"', '"type":"con\\u0074ent"'),
      plain.replace('github.com/org/repo', 'github.com\\/org\\/repo'),
      plain.replace('"dir/a.go"', '"dir\\/a.go"'),
      plain.replace('line 0', 'line \\u0030'),
      plain.replace('"repoStars":3', '"repoStars":3,"repoStars":4'),
      plain.replace('"repoStars":3', '"repoStars":3e0'),
    ]) {
      expect(json).not.toBe(plain);
      expect(scan(scanner, json), json).toEqual(reference(json));
    }
  });

  it('rejects every truncation and every garbling of a batch of learned shapes', () => {
    const scanner = fresh();
    const batch = [contentMatch('r', 'p', [2]), pathMatch('r', 'q'), commitMatch('r', 1), lineMatch('r', 'l', [1, 2])];
    const valid = JSON.stringify(batch);
    expect(scan(scanner, valid)).toEqual(reference(valid));
    expect(scanner.shapeCount).toBe(4);
    for (let cut = 0; cut < valid.length; cut++) expect(scan(scanner, valid.slice(0, cut)), valid.slice(0, cut)).toBeUndefined();
    // One char changed anywhere: either still valid JSON (then counted exactly) or rejected, except where the
    // change gives an object of a new shape and lands in a value the general path skips leniently, or is a raw
    // control char in a string (see scan-matches.ts): then the result is the general path's.
    const general = new MatchScanner({ learn: false });
    const random = prng(11);
    let invalid = 0;
    let rejected = 0;
    const garbage = ['x', '"', '\\', ',', ':', '{', '}', '[', ']', '1', ' ', '\u0000', 'é'];
    for (let i = 0; i < 3000; i++) {
      const at = Math.floor(random() * valid.length);
      const char = garbage[Math.floor(random() * garbage.length)]!;
      const json = valid.slice(0, at) + char + valid.slice(at + 1);
      let expected: ReturnType<typeof summary> | undefined;
      try {
        expected = reference(json);
      } catch {
        expected = undefined;
      }
      const got = scan(scanner, json);
      if (expected !== undefined) {
        expect(got, json).toEqual(expected);
      } else {
        if (char !== '\u0000') invalid++;
        if (got === undefined) rejected += char !== '\u0000' ? 1 : 0;
        else expect(got, json).toEqual(scan(general, json));
      }
    }
    expect(invalid).toBeGreaterThan(1000);
    expect(rejected / invalid).toBeGreaterThan(0.95);
    expect(scanner.shaped).toBeGreaterThan(1000);
  });

  it('checks the escapes of file text it skips by native search', () => {
    const scanner = fresh();
    const base = contentMatch('r', 'p', [1]);
    const ok = JSON.stringify([base, { ...base, chunkMatches: [{ ...(base.chunkMatches as object[])[0]!, content: 'a\\"b\\\\"c\n\u00e9\u2028' }] }]);
    expect(scan(scanner, ok)).toEqual(reference(ok));
    for (const bad of ['\\x', '\\u12g4', '\\']) {
      const json = JSON.stringify([base, base]).replace('line 0', `line ${bad}0`);
      expect(scan(scanner, json), json).toBeUndefined();
    }
  });
});
