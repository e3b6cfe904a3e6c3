import { describe, expect, it } from 'vitest';
import { compareKeys, compareText, pairByKey } from '../../src/report/compare/pairing.js';

type Item = { id: string; repeat: number; turn: number; v: string };
const key = (i: Item) => [i.id, i.repeat, i.turn];
const item = (id: string, repeat: number, turn: number, v = ''): Item => ({ id, repeat, turn, v });

describe('pairing by key', () => {
  it('pairs equal keys and lists missing and extra items on their side, in key order', () => {
    const baseline = [item('a', 0, 0, 'b1'), item('a', 0, 1, 'b2'), item('b', 0, 0, 'b3'), item('c', 1, 0, 'b4')];
    const candidate = [item('a', 0, 0, 'c1'), item('b', 0, 0, 'c3'), item('b', 1, 0, 'c5'), item('c', 1, 0, 'c4'), item('d', 0, 0, 'c6')];
    const pairs = [...pairByKey(baseline, candidate, key, key)].map((p) => [p.pairing, p.key.join('/'), p.baseline?.v ?? null, p.candidate?.v ?? null]);
    expect(pairs).toEqual([
      ['paired', 'a/0/0', 'b1', 'c1'],
      ['baseline_only', 'a/0/1', 'b2', null],
      ['paired', 'b/0/0', 'b3', 'c3'],
      ['candidate_only', 'b/1/0', null, 'c5'],
      ['paired', 'c/1/0', 'b4', 'c4'],
      ['candidate_only', 'd/0/0', null, 'c6'],
    ]);
  });

  it('handles empty sides', () => {
    expect([...pairByKey([], [], key, key)]).toEqual([]);
    expect([...pairByKey([item('a', 0, 0)], [], key, key)].map((p) => p.pairing)).toEqual(['baseline_only']);
    expect([...pairByKey([], [item('a', 0, 0), item('b', 0, 0)], key, key)].map((p) => p.pairing)).toEqual(['candidate_only', 'candidate_only']);
  });

  it('compares numbers as numbers (repeat 10 after repeat 9)', () => {
    const b = [item('a', 9, 0), item('a', 10, 0)];
    expect([...pairByKey(b, b, key, key)].map((p) => p.pairing)).toEqual(['paired', 'paired']);
  });

  it('refuses input out of key order or with a repeated key', () => {
    expect(() => [...pairByKey([item('b', 0, 0), item('a', 0, 0)], [], key, key)]).toThrow(/not in key order/);
    expect(() => [...pairByKey([], [item('a', 0, 0), item('a', 0, 0)], key, key)]).toThrow(/candidate items are not in key order/);
  });

  it('orders text by code point, as SQLite orders UTF-8', () => {
    expect(compareText('a', 'b')).toBeLessThan(0);
    expect(compareText('B', 'a')).toBeLessThan(0);
    expect(compareText('a', 'a')).toBe(0);
    expect(compareText('ab', 'a')).toBeGreaterThan(0);
    // U+FF5E (BMP, above the surrogates) sorts before U+1F600 in code point order, unlike UTF-16 order.
    expect(compareText('\uff5e', '😀')).toBeLessThan(0);
    expect(compareKeys(['a', 2], ['a', 10])).toBeLessThan(0);
  });
});
