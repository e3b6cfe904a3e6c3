// What defines a suite item, hashed: its question (or query), follow-ups and expectations change the hash; how it
// is run (id, tags, repeats, timeout, polling) and the order keys are written in do not.
import { describe, expect, it } from 'vitest';
import { questionDefinitionHash, searchDefinitionHash } from '../../src/config/definition-hash.js';
import { parseSuite } from '../../src/config/load-suite.js';

const hashes = (text: string) => {
  const { resolved } = parseSuite(text, 'suite.yaml');
  return { q: questionDefinitionHash(resolved.questions[0]!), s: searchDefinitionHash(resolved.searches[0]!) };
};

const base = `
name: h
questions:
  - id: q
    question: Where is parseSuite defined?
    followups: [Who calls it?]
    expect: { contains: parseSuite, state: completed }
searches:
  - id: s
    query: parseSuite count:all
    expect: { minCount: 1 }
`;

describe('the definition hash of an item', () => {
  it('ignores how the item is run and the order its keys are written in', () => {
    const same = hashes(`
name: h
defaults: { repeats: 3, tags: [nightly], timeout: 10m }
questions:
  - id: renamed
    tags: [x]
    expect: { state: completed, contains: parseSuite }
    followups: [Who calls it?]
    question: Where is parseSuite defined?
searches:
  - id: other
    expect: { minCount: 1 }
    query: parseSuite count:all
`);
    expect(same).toEqual(hashes(base));
  });

  it.each([
    ['the question', base.replace('Where is parseSuite defined?', 'Where is parseSuite declared?'), 'q'],
    ['a follow-up', base.replace('Who calls it?', 'Who else calls it?'), 'q'],
    ['an expectation', base.replace('contains: parseSuite,', 'contains: parseSuites,'), 'q'],
    ['the query', base.replace('parseSuite count:all', 'parseSuite count:1000'), 's'],
    ['a search expectation', base.replace('minCount: 1', 'minCount: 2'), 's'],
  ] as const)('changes with %s', (_what, edited, which) => {
    const before = hashes(base);
    const after = hashes(edited);
    expect(after[which]).not.toBe(before[which]);
    expect(after[which === 'q' ? 's' : 'q']).toBe(before[which === 'q' ? 's' : 'q']);
  });
});
