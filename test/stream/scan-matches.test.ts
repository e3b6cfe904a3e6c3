import { describe, expect, it } from 'vitest';
import { MatchBatch } from '../../src/stream/batch.js';
import { countObjects } from '../../src/stream/count-objects.js';
import { KNOWN_TYPES } from '../../src/stream/match-types.js';
import { MatchScanner } from '../../src/stream/scan-matches.js';
import { commitMatch, contentMatch, lineMatch, pathMatch, prng, repoMatch, symbolMatch } from './fixtures.js';

const scanner = new MatchScanner();

/** What a batch holds, in comparable form. */
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

/** Scans JSON text the way the decoder hands it over: UTF-8 bytes read as latin1. */
function scan(json: string): ReturnType<typeof summary> | undefined {
  const batch = new MatchBatch();
  return scanner.scan(Buffer.from(json, 'utf8').toString('latin1'), batch) ? summary(batch) : undefined;
}

function reference(json: string): ReturnType<typeof summary> {
  const batch = new MatchBatch();
  countObjects(JSON.parse(json) as unknown[], batch);
  return summary(batch);
}

describe('MatchScanner: the counting rule', () => {
  const cases: [string, unknown, Record<string, number>][] = [
    ['content with chunk matches counts their ranges', contentMatch('r', 'a.go', [2, 3]), { content: 5 }],
    ['content with line matches counts offsetAndLengths', lineMatch('r', 'a.go', [1, 4]), { content: 5 }],
    ['content with no ranges still counts 1', contentMatch('r', 'a.go', []), { content: 1 }],
    ['path counts 1', pathMatch('r', 'a.go'), { path: 1 }],
    ['repo counts 1', repoMatch('r'), { repo: 1 }],
    ['symbol counts its symbols', symbolMatch('r', 'a.go', 3), { symbol: 3 }],
    ['commit counts its ranges', commitMatch('r', 4), { commit: 4 }],
    ['commit without ranges counts 1', commitMatch('r', 0), { commit: 1 }],
    ['person counts 1', { type: 'person', handle: 'x' }, { person: 1 }],
    ['team counts 1', { type: 'team', name: 't' }, { team: 1 }],
  ];
  it.each(cases)('%s', (_name, match, expected) => {
    const got = scan(JSON.stringify([match]))!;
    expect(Object.fromEntries(Object.entries(got.counted).filter(([, n]) => n! > 0))).toEqual(expected);
    expect(got.objects).toBe(1);
    expect(got).toEqual(reference(JSON.stringify([match])));
  });

  it('prefers chunk matches over line matches, like the fallback', () => {
    const both = { ...lineMatch('r', 'p', [7]), chunkMatches: [{ content: 'x', ranges: [{}, {}] }] };
    expect(scan(JSON.stringify([both]))!.counted.content).toBe(2);
  });

  it('skips unknown types but counts them by name, and counts non-matches as invalid', () => {
    const json = JSON.stringify([{ type: 'diff', x: 1 }, { type: 'café' }, { type: 'diff' }, 3, null, [], { path: 'p' }, { type: 5 }]);
    const got = scan(json)!;
    expect(got.unknown).toEqual({ diff: 2, café: 1 });
    expect(got.invalid).toBe(5);
    expect(got.objects).toBe(0);
    expect(got).toEqual(reference(json));
  });

  it('takes the last of duplicate keys, as JSON.parse does', () => {
    const json = '[{"type":"path","repository":"a","type":"content","chunkMatches":[{"ranges":[1]}],"chunkMatches":[{"ranges":[1,2,3],"ranges":[1,2]}]}]';
    const got = scan(json)!;
    expect(got.counted.content).toBe(2);
    expect(got).toEqual(reference(json));
  });

  it('resolves escapes in keys, types and names before comparing and hashing', () => {
    const plain = JSON.stringify([contentMatch('github.com/é/x', 'dir/ü.go', [1])]);
    const escaped = plain
      .replace('"type":"content"', '"typ\\u0065":"con\\u0074ent"')
      .replace('github.com/é/x', 'github.com/\\u00e9\\/x')
      .replace('"chunkMatches"', '"chunk\\u004datches"');
    expect(escaped).not.toBe(plain);
    expect(scan(escaped)).toEqual(scan(plain));
    expect(scan(escaped)).toEqual(reference(escaped));
  });

  it('accepts whitespace anywhere JSON allows it', () => {
    const json = JSON.stringify([contentMatch('r', 'p', [2]), pathMatch('r', 'q')], null, '\t');
    expect(scan(` \n${json}\r\n `)).toEqual(reference(json));
  });

  it('handles an empty batch', () => {
    expect(scan('[]')).toEqual(reference('[]'));
    expect(scan(' [ ] ')).toEqual(reference('[]'));
  });
});

describe('MatchScanner: agrees with JSON.parse + countObjects on generated batches', () => {
  const random = prng(42);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const names = ['a', 'github.com/org/repo', 'gitlab.com/ü/ñ', 'x/"quoted"\\back', 'emoji/😀', 'tab\tnew\nline', '<&>'];

  function extra(depth: number): unknown {
    const r = random();
    if (depth > 3 || r < 0.3) return pick([0, -1.5e3, 12.25, true, false, null, '', 'str', 'ü\\"', '😀']);
    if (r < 0.65) return Array.from({ length: Math.floor(random() * 4) }, () => extra(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, (_, i) => [`k${i}${pick(['', 'é', '"'])}`, extra(depth + 1)]));
  }

  function match(): unknown {
    const repo = pick(names);
    const path = pick(names);
    const base = pick([
      () => contentMatch(repo, path, Array.from({ length: Math.floor(random() * 3) }, () => Math.floor(random() * 4))),
      () => lineMatch(repo, path, Array.from({ length: Math.floor(random() * 3) }, () => Math.floor(random() * 4))),
      () => pathMatch(repo, path),
      () => repoMatch(repo),
      () => symbolMatch(repo, path, Math.floor(random() * 3)),
      () => commitMatch(repo, Math.floor(random() * 3)),
      () => ({ type: pick(['person', 'team', 'diff', 'future']) }),
      () => pick([1, 'x', null, [], { notype: true }]),
    ])();
    if (typeof base !== 'object' || base === null || Array.isArray(base)) return base;
    const m: Record<string, unknown> = { ...base };
    if (random() < 0.5) m[`extra${Math.floor(random() * 3)}`] = extra(0);
    if (random() < 0.1) m.repository = pick([null, 5, ['x']]);
    if (random() < 0.1) m.chunkMatches = pick([null, 'x', [null, 1, { ranges: 'no' }, { ranges: [1, 2] }]]);
    return m;
  }

  it('matches the fallback on 400 random batches (whitespace, escapes, odd shapes)', () => {
    let compared = 0;
    for (let i = 0; i < 400; i++) {
      const batch = Array.from({ length: Math.floor(random() * 6) }, match);
      let json = JSON.stringify(batch, null, random() < 0.2 ? pick([1, '\t']) : undefined);
      // Escape some letters the way other encoders might (an escape may break one; such batches are skipped).
      if (random() < 0.3) json = json.replace(/[a-z]/g, (c) => (random() < 0.05 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c));
      let expected: ReturnType<typeof summary>;
      try {
        expected = reference(json);
      } catch {
        continue;
      }
      expect(scan(json), json).toEqual(expected);
      compared++;
    }
    expect(compared).toBeGreaterThan(300);
  });
});

describe('MatchScanner: rejects what is not a valid JSON array', () => {
  const valid = JSON.stringify([contentMatch('r', 'p', [2]), pathMatch('r', 'q\\"'), commitMatch('r', 1)]);

  it('rejects every truncation of a valid batch', () => {
    for (let cut = 0; cut < valid.length; cut++) expect(scan(valid.slice(0, cut)), valid.slice(0, cut)).toBeUndefined();
  });

  it.each([
    ['a top level that is not an array', '{"type":"path"}'],
    ['trailing garbage', '[]x'],
    ['a trailing comma', '[{"type":"path"},]'],
    ['a missing colon', '[{"type" "path"}]'],
    ['a missing comma', '[{"type":"path" "path":"x"}]'],
    ['a bad escape', '[{"type":"pa\\xth"}]'],
    ['a short \\u escape', '[{"type":"\\u12"}]'],
    ['a bad number', '[{"type":"path","repoStars":01}]'],
    ['a bare minus', '[{"type":"path","repoStars":-}]'],
    ['a bad literal', '[{"type":"path","hunks":nul}]'],
    ['mismatched brackets inside a skipped value', '[{"type":"path","x":[{]}]}]'],
    ['a stray letter inside a skipped value', '[{"type":"path","x":{"a":1x}}]'],
    ['an unterminated string', '[{"type":"path}]'],
  ])('rejects %s', (_name, json) => {
    expect(scan(json)).toBeUndefined();
  });

  it('leaves nesting deeper than it tracks to the fallback', () => {
    const deep = `[{"type":"path","x":${'['.repeat(40)}${']'.repeat(40)}}]`;
    expect(scan(deep)).toBeUndefined();
    expect(reference(deep).counted.path).toBe(1);
  });
});
