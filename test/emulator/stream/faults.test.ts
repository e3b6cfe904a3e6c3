import http from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Corpus } from '../../../src/emulator/corpus/index.js';
import { StreamFaultInjector } from '../../../src/emulator/stream/index.js';
import { json, makeCorpusDir, openCorpus, parseEvents, removeDir, startServer, stream, type TestServer } from './harness.js';

let dir: string;
let corpus: Corpus;
const faults = new StreamFaultInjector({ stallMs: 300 });
let server: TestServer;

beforeAll(async () => {
  dir = makeCorpusDir();
  corpus = await openCorpus(dir);
  server = await startServer({ corpus, faults }, { flushBytes: 1 });
});

afterAll(async () => {
  await server.close();
  removeDir(dir);
});

interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Decoded body text with the time each piece arrived, relative to the request. */
  pieces: { at: number; text: string }[];
  text: string;
  error?: Error;
}

/** A raw request that tolerates a broken stream and decodes gzip piece by piece. */
function raw(url: string, headers: Record<string, string> = {}, onPiece?: (req: http.ClientRequest) => void): Promise<RawReply> {
  const started = Date.now();
  return new Promise((resolve) => {
    const req = http.get(url, { headers }, (res) => {
      const reply: RawReply = { status: res.statusCode!, headers: res.headers, pieces: [], text: '' };
      const finish = () => resolve({ ...reply, text: reply.pieces.map((p) => p.text).join('') });
      res.on('aborted', () => (reply.error ??= new Error('aborted')));
      res.on('error', (error) => (reply.error ??= error));
      let body: NodeJS.ReadableStream = res;
      if (res.headers['content-encoding'] === 'gzip') {
        const gunzip = zlib.createGunzip();
        body = res.pipe(gunzip);
        // A cut stream never ends the gunzip stream by itself; ending it yields what arrived, then an error.
        res.on('close', () => gunzip.writableEnded || gunzip.end());
        gunzip.on('error', (error) => {
          reply.error ??= error;
          finish();
        });
        gunzip.on('end', finish);
      } else {
        res.on('close', finish);
      }
      body.on('data', (chunk: Buffer) => {
        reply.pieces.push({ at: Date.now() - started, text: chunk.toString('utf8') });
        onPiece?.(req);
      });
    });
    req.on('error', (error) => resolve({ status: 0, headers: {}, pieces: [], text: '', error }));
  });
}

/**
 * Every byte the server sent before closing, read from the socket itself: an HTTP client may drop
 * data that arrives together with the close. The chunked body is decoded by hand (and gunzipped
 * leniently), and `complete` tells whether its terminating chunk arrived.
 */
function rawSocket(target: string, headers: Record<string, string>): Promise<{ head: string; text: string; complete: boolean }> {
  const { hostname, port, pathname, search } = new URL(target);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(port), hostname, () => {
      const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
      socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}\r\n${lines}Connection: close\r\n\r\n`);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      const head = all.subarray(0, split).toString('latin1');
      const parts: Buffer[] = [];
      let complete = false;
      for (let at = split + 4; at < all.length; ) {
        const eol = all.indexOf('\r\n', at);
        if (eol === -1) break;
        const size = parseInt(all.subarray(at, eol).toString('latin1'), 16);
        if (size === 0) complete = true;
        parts.push(all.subarray(eol + 2, Math.min(eol + 2 + size, all.length)));
        at = eol + 2 + size + 2;
      }
      const body = Buffer.concat(parts);
      const gzip = /content-encoding: gzip/i.test(head);
      const decoded = gzip ? zlib.gunzipSync(body, { finishFlush: zlib.constants.Z_SYNC_FLUSH }) : body;
      resolve({ head, text: decoded.toString('utf8'), complete });
    });
  });
}

const url = (q: string) => `${server.url}?q=${encodeURIComponent(q)}`;

describe('gzip', () => {
  it('compresses when asked and flushes each batch at once', async () => {
    faults.enqueue('stall');
    const reply = await raw(url('count:all retry'), { 'Accept-Encoding': 'gzip' });
    expect(reply.headers['content-encoding']).toBe('gzip');
    const events = parseEvents(reply.text);
    expect(events.at(-1)!.event).toBe('done');
    // The exclusions come first, as soon as the repositories are chosen.
    expect(events[0]!.event).toBe('filters');
    const first = reply.pieces[0]!;
    expect(first.text.startsWith('event: filters\n')).toBe(true);
    expect(reply.pieces.at(-1)!.at - first.at).toBeGreaterThanOrEqual(250);
  });

  it('does not compress without Accept-Encoding: gzip', async () => {
    const reply = await raw(url('retry'), { 'Accept-Encoding': 'identity' });
    expect(reply.headers['content-encoding']).toBeUndefined();
    expect(parseEvents(reply.text).at(-1)!.event).toBe('done');
  });
});

describe('fault modes', () => {
  it('answers 401 in plain text', async () => {
    faults.enqueue('status401');
    const res = await fetch(url('retry'));
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe('Invalid access token.\n');
  });

  it('answers 500 in plain text before any event', async () => {
    faults.enqueue('status500');
    const res = await fetch(url('retry'));
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain('event:');
  });

  it.each(['identity', 'gzip'])('cuts the stream before done (%s)', async (encoding) => {
    faults.enqueue('cutBeforeDone');
    const reply = await rawSocket(url('count:all retry'), { 'Accept-Encoding': encoding });
    expect(reply.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(reply.complete).toBe(false);
    // The first events (filters, then matches or, after a tick on a slow machine, progress) and no more.
    expect(reply.text).toMatch(/^event: filters\ndata: /);
    expect(reply.text).not.toContain('event: done');
    const next = await stream(server.url, { q: 'retry' });
    expect(next.events.at(-1)!.event).toBe('done');
  });

  it('sends a malformed event, then carries on to done', async () => {
    faults.enqueue('malformedEvent');
    const { events } = await stream(server.url, { q: 'retry' });
    expect(() => json(events[0]!)).toThrow(SyntaxError);
    expect(events[0]!.event).toBe('matches');
    for (const e of events.slice(1)) json(e);
    expect(events.at(-1)!.event).toBe('done');
  });

  it('stalls without closing, then finishes', async () => {
    faults.enqueue('stall');
    const reply = await raw(url('count:all retry'), { 'Accept-Encoding': 'identity' });
    expect(reply.error).toBeUndefined();
    expect(reply.pieces.at(-1)!.at - reply.pieces[0]!.at).toBeGreaterThanOrEqual(250);
    expect(parseEvents(reply.text).at(-1)!.event).toBe('done');
  });

  it('applies one queued fault per request, in order', async () => {
    faults.enqueue('status500', 'status401');
    expect((await fetch(url('x'))).status).toBe(500);
    expect((await fetch(url('x'))).status).toBe(401);
    expect((await fetch(url('x'))).status).toBe(200);
  });

  it('draws faults by rate, reproducibly from the seed', () => {
    const draw = (seed: number) => {
      const injector = new StreamFaultInjector({ rates: { status500: 0.3, cutBeforeDone: 0.2 }, seed });
      return Array.from({ length: 200 }, () => injector.next());
    };
    const a = draw(7);
    expect(draw(7)).toEqual(a);
    const share = (kind: string) => a.filter((k) => k === kind).length / a.length;
    expect(share('status500')).toBeGreaterThan(0.15);
    expect(share('status500')).toBeLessThan(0.45);
    expect(share('cutBeforeDone')).toBeGreaterThan(0.05);
    expect(a).toContain(undefined);
    expect(() => new StreamFaultInjector({ rates: { stall: 0.8, status401: 0.5 } })).toThrow(/at most 1/);
  });
});

describe('client behaviour', () => {
  let many: string;
  let manyCorpus: Corpus;
  const FILES = 400;

  beforeAll(async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < FILES; i++) files[`github.com/bulk/data/f${String(i).padStart(3, '0')}.txt`] = 'retry\n'.repeat(1000);
    many = makeCorpusDir(files);
    manyCorpus = await openCorpus(many);
  });

  afterAll(() => removeDir(many));

  const settle = async (read: () => number) => {
    let last = -1;
    while (read() !== last) {
      last = read();
      await new Promise((r) => setTimeout(r, 100));
    }
    return last;
  };

  it('stops searching when the client disconnects', async () => {
    const reads = vi.spyOn(manyCorpus, 'readText');
    const slow = await startServer({ corpus: manyCorpus });
    try {
      await raw(`${slow.url}?q=count:all+retry`, {}, (req) => req.destroy());
      const calls = await settle(() => reads.mock.calls.length);
      expect(calls).toBeLessThan(FILES / 2);
    } finally {
      reads.mockRestore();
      await slow.close();
    }
  });

  it('waits for a slow reader instead of buffering the whole result', async () => {
    const reads = vi.spyOn(manyCorpus, 'readText');
    const slow = await startServer({ corpus: manyCorpus });
    const req = http.get(`${slow.url}?q=count:all+retry`, (res) => res.pause());
    try {
      await new Promise((r) => setTimeout(r, 150));
      const calls = await settle(() => reads.mock.calls.length);
      expect(calls).toBeLessThan(FILES);
    } finally {
      req.destroy();
      reads.mockRestore();
      await slow.close();
    }
  });
});
