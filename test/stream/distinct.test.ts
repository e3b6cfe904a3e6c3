import { describe, expect, it } from 'vitest';
import { DistinctCounter } from '../../src/stream/distinct.js';
import { combine, hashRange, type Hash64 } from '../../src/stream/hash.js';

function hashOf(s: string): Hash64 {
  const h = { hi: 0, lo: 0 };
  hashRange(s, 0, s.length, h);
  return h;
}

describe('DistinctCounter', () => {
  it('counts distinct keys exactly through many growths', () => {
    const counter = new DistinctCounter(1_000_000);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 100_000; i++) {
        const h = hashOf(`github.com/org/repo${i % 5000}/file${i}.go`);
        counter.add(h.hi, h.lo);
      }
    }
    expect(counter.size).toBe(100_000);
    expect(counter.capped).toBe(false);
  });

  it('stores the all-zero key, which marks empty slots internally', () => {
    const counter = new DistinctCounter();
    counter.add(0, 0);
    counter.add(0, 0);
    counter.add(0, 1);
    expect(counter.size).toBe(1);
  });

  it('stops storing at its cap and says so; the count is then a lower bound', () => {
    const counter = new DistinctCounter(10);
    for (let i = 0; i < 50; i++) counter.add(i, i * 7 + 1);
    expect(counter.size).toBe(10);
    expect(counter.capped).toBe(true);
    counter.add(0, 1);
    expect(counter.size).toBe(10);
  });

  it('grows straight to its largest table from a quarter of it, keeping every key', () => {
    const counter = new DistinctCounter(3000);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 3000; i++) {
        const h = hashOf(`file${i}`);
        counter.add(h.hi, h.lo);
      }
    }
    expect(counter.size).toBe(3000);
    expect(counter.capped).toBe(false);
    counter.add(1, 2);
    expect(counter.capped).toBe(true);
  });

  it('adds batches of keys as single adds do', () => {
    const keys = new Int32Array(2000);
    for (let i = 0; i < 1000; i++) {
      const h = hashOf(`k${i % 700}`);
      keys[2 * i] = h.hi;
      keys[2 * i + 1] = h.lo;
    }
    const batched = new DistinctCounter();
    batched.addAll(keys, 2000);
    expect(batched.size).toBe(700);
  });

  it('keeps 48 bits of a key: lo and the low 16 bits of hi', () => {
    const counter = new DistinctCounter();
    counter.add(0x00010005, 7);
    counter.add(0x7fff0005, 7);
    expect(counter.size).toBe(1);
    counter.add(0x00010006, 7);
    counter.add(0x00010005, 8);
    expect(counter.size).toBe(3);
  });

  it('keys files by repository and path in order', () => {
    const a = hashOf('repo');
    const b = hashOf('path');
    const ab = { hi: 0, lo: 0 };
    const ba = { hi: 0, lo: 0 };
    combine(a.hi, a.lo, b.hi, b.lo, ab);
    combine(b.hi, b.lo, a.hi, a.lo, ba);
    expect(ab).not.toEqual(ba);
  });
});
