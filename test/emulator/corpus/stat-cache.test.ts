import { describe, expect, it } from 'vitest';
import { StatCache } from '../../../src/emulator/corpus/stat-cache.js';

describe('StatCache', () => {
  it('gives a value back only under the key it was kept with', () => {
    const cache = new StatCache<string>(10);
    cache.set('/a', 'k1', 'one');
    expect(cache.get('/a', 'k1')).toBe('one');
    expect(cache.get('/a', 'k2')).toBeUndefined();
    expect(cache.has('/a')).toBe(true);
  });

  it('drops the least recently used beyond its weight, and a value heavier than the whole bound at once', () => {
    const cache = new StatCache<string>(10, (text) => text.length);
    cache.set('/a', 'k', 'aaaa');
    cache.set('/b', 'k', 'bbbb');
    expect(cache.get('/a', 'k')).toBe('aaaa');
    cache.set('/c', 'k', 'cccc');
    expect([cache.has('/a'), cache.has('/b'), cache.has('/c')]).toEqual([true, false, true]);
    // Replacing a value counts its new weight only.
    cache.set('/a', 'k2', 'aaaaaa');
    expect([cache.get('/a', 'k2'), cache.get('/c', 'k')]).toEqual(['aaaaaa', 'cccc']);
    cache.set('/d', 'k', 'd'.repeat(11));
    expect([cache.has('/a'), cache.has('/c'), cache.has('/d')]).toEqual([false, false, false]);
    cache.set('/e', 'k', 'e'.repeat(10));
    expect(cache.get('/e', 'k')).toBe('e'.repeat(10));
  });
});
