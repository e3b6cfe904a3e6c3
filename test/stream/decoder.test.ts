import { describe, expect, it } from 'vitest';
import { EventConsumer } from '../../src/stream/consume.js';
import { EventDecoder, MAX_EVENT_BYTES } from '../../src/stream/decoder.js';
import type { SearchResult } from '../../src/stream/result.js';
import { Tally } from '../../src/stream/tally.js';
import { contentMatch, finalProgress, pathMatch, prng, progress, randomCuts, sse } from './fixtures.js';

/** Decodes the pieces in order, as the pump would hand them over. */
function decode(pieces: Buffer[]): SearchResult {
  const tally = new Tally({ maxDistinct: 1000 });
  const consumer = new EventConsumer(tally);
  const decoder = new EventDecoder((name, data) => consumer.event(name, data));
  for (const piece of pieces) decoder.feed(piece);
  tally.end();
  return tally.result();
}

function cutAt(bytes: Buffer, cuts: number[]): Buffer[] {
  const pieces: Buffer[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    pieces.push(bytes.subarray(from, cut));
    from = cut;
  }
  return pieces;
}

/** The result without its clock readings, which differ from run to run. */
function timeless(r: SearchResult): Omit<SearchResult, 'wallMs' | 'timeToFirstEventMs' | 'timeToFirstMatchMs'> {
  const { wallMs: _w, timeToFirstEventMs: _e, timeToFirstMatchMs: _m, ...rest } = r;
  return rest;
}

const stream = Buffer.from(
  sse('matches', [contentMatch('github.com/é/中', 'dir/ü😀.go', [2, 1]), pathMatch('github.com/é/中', 'dir/ü😀.go')]) +
    sse('progress', progress(4)) +
    sse('matches', [contentMatch('github.com/ascii/x', 'main.go', [1]), pathMatch('github.com/é/中', 'other.txt')]) +
    sse('filters', [{ value: 'lang:go', label: 'Gö 语言', count: 3, exhaustive: true, kind: 'lang' }]) +
    sse('progress', finalProgress(6)) +
    sse('alert', { title: 'Überraschung 😀', description: 'ß', proposedQueries: [{ query: 'lang:go ü', description: 'é' }] }) +
    sse('done', {}),
);

describe('EventDecoder + EventConsumer', () => {
  const whole = decode([stream]);

  it('decodes the whole stream', () => {
    expect(whole.done).toBe(true);
    expect(whole.counted).toBe(6);
    expect(whole.countedByType).toEqual({ content: 4, path: 2 });
    expect(whole.repositories).toBe(2);
    expect(whole.files).toBe(3);
    expect(whole.filters[0]!.label).toBe('Gö 语言');
    expect(whole.alerts[0]).toEqual({ title: 'Überraschung 😀', description: 'ß', proposedQueries: [{ query: 'lang:go ü', description: 'é' }] });
    expect(whole.eventCount).toBe(7);
    expect(whole.errors).toEqual([]);
  });

  it('gives the same result when the bytes are cut at any single position', () => {
    for (let cut = 1; cut < stream.length; cut++) {
      expect(timeless(decode(cutAt(stream, [cut]))), `cut at ${cut}`).toEqual(timeless(whole));
    }
  });

  it('gives the same result for random multi-way cuts and for one byte at a time', () => {
    const random = prng(7);
    for (let i = 0; i < 200; i++) expect(timeless(decode(cutAt(stream, randomCuts(stream.length, 12, random))))).toEqual(timeless(whole));
    expect(timeless(decode(cutAt(stream, Array.from({ length: stream.length - 1 }, (_, i) => i + 1))))).toEqual(timeless(whole));
  });

  it('ignores a UTF-8 byte-order mark and events after done', () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), stream, Buffer.from(sse('matches', [pathMatch('r', 'late')]))]);
    expect(timeless(decode([withBom]))).toEqual(timeless(whole));
  });

  it('counts through the JSON.parse fallback what the scanner leaves to it', () => {
    const deep = `[{"type":"path","repository":"r","path":"p","x":${'['.repeat(40)}${']'.repeat(40)}}]`;
    const r = decode([Buffer.from(sse('matches', deep) + sse('done', {}))]);
    expect(r.countedByType).toEqual({ path: 1 });
    expect(r.files).toBe(1);
    expect(r.errors).toEqual([]);
  });

  it('decodes CRLF and CR line ends wherever the bytes are cut', () => {
    // Every cut of the stream above is covered by the tests before; here what matters is the line ends, so the
    // stream is the shortest that still holds every event kind (so every line-end pair: after the name, after
    // the data, the blank line, and between events) and a UTF-8 character. Every cut point of it is tried, and
    // each decode costs about the same whatever the stream's length, so the shorter stream is what keeps this
    // test quick.
    const short = Buffer.from(
      sse('matches', [pathMatch('r', 'é')]) +
        sse('progress', progress(1)) +
        sse('filters', [{ value: 'lang:go', label: 'Go', count: 1, exhaustive: true, kind: 'lang' }]) +
        sse('progress', finalProgress(1)) +
        sse('alert', { title: 't' }) +
        sse('done', {}),
    );
    const lf = timeless(decode([short]));
    expect(lf).toMatchObject({ done: true, counted: 1, eventCount: 6, errors: [] });
    expect(lf.filters).toHaveLength(1);
    expect(lf.alerts).toHaveLength(1);
    const random = prng(5);
    for (const eol of ['\r\n', '\r']) {
      const other = Buffer.from(short.toString('latin1').replace(/\n/g, eol), 'latin1');
      const expected = timeless(decode([other]));
      // The parser waits for a LF after a CR that ends its input, so a CR-only stream's last event stays unsent.
      if (eol === '\r\n') expect(expected).toEqual(lf);
      else expect(expected.eventCount).toBe(lf.eventCount - 1);
      for (let cut = 1; cut < other.length; cut++) expect(timeless(decode(cutAt(other, [cut]))), `cut at ${cut}`).toEqual(expected);
      for (let i = 0; i < 50; i++) expect(timeless(decode(cutAt(other, randomCuts(other.length, 8, random))))).toEqual(expected);
    }
  });

  it('carries an event across many chunks, larger than the carry buffer', () => {
    const big = Array.from({ length: 3000 }, (_, i) => contentMatch(`github.com/o/r${i % 7}`, `f${i}.go`, [1, 2]));
    const bytes = Buffer.from(sse('matches', big) + sse('progress', finalProgress(9000)) + sse('done', {}));
    expect(bytes.length).toBeGreaterThan(1024 * 1024);
    const cuts = Array.from({ length: Math.floor(bytes.length / 1000) }, (_, i) => (i + 1) * 1000);
    const r = decode(cutAt(bytes, cuts));
    expect(r.counted).toBe(9000);
    expect(r.files).toBe(1000);
    expect(r.errors).toEqual([]);
  });

  it('stops at an event larger than 10 MB', () => {
    const decoder = new EventDecoder(() => undefined);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    expect(decoder.feed(Buffer.from('event: matches\ndata: '))).toBe(true);
    let fed = 0;
    while (decoder.feed(chunk)) fed += chunk.length;
    expect(fed).toBeLessThanOrEqual(MAX_EVENT_BYTES);
    expect(fed).toBeGreaterThan(MAX_EVENT_BYTES - 2 * chunk.length);
    expect(decoder.tooLarge).toBe(true);
  });
});
