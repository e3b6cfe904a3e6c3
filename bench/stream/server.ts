// Child process: streams `n` content matches (`matches:<n>` in the query `q`) as the platform would, as fast
// as the socket takes them. Write buffers are pre-filled with the rendered batch and reused once written;
// only the ids are patched in, so the server is not the bottleneck.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { REPOSITORIES, batchTemplate, patchBatch } from './corpus.js';

const template = batchTemplate();
/** Batches per socket write: fewer, larger writes; the byte stream is the same. */
const BATCHES_PER_WRITE = 8;
const PROGRESS_EVERY_WRITES = 8;
const WRITE_BYTES = template.bytes.length * BATCHES_PER_WRITE;

/** Buffers holding BATCHES_PER_WRITE copies of the template, free to be patched and written. */
const free: Buffer[] = [];

function takeBuffer(): Buffer {
  const reused = free.pop();
  if (reused) return reused;
  const buffer = Buffer.allocUnsafe(WRITE_BYTES);
  for (let k = 0; k < BATCHES_PER_WRITE; k++) template.bytes.copy(buffer, k * template.bytes.length);
  return buffer;
}

function event(name: string, data: unknown): Buffer {
  return Buffer.from(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
}

function send(res: http.ServerResponse, n: number): void {
  const writes = Math.ceil(n / (template.matches * BATCHES_PER_WRITE));
  const batches = writes * BATCHES_PER_WRITE;
  const started = Date.now();
  let w = 0;
  const next = (): void => {
    for (; w < writes; w++) {
      const buffer = takeBuffer();
      for (let k = 0; k < BATCHES_PER_WRITE; k++) {
        patchBatch(template, (w * BATCHES_PER_WRITE + k) * template.matches, buffer, k * template.bytes.length);
      }
      let ok = res.write(buffer, () => free.push(buffer));
      if (w % PROGRESS_EVERY_WRITES === 0) {
        const matchCount = (w + 1) * BATCHES_PER_WRITE * template.counted;
        ok = res.write(event('progress', { done: false, matchCount, durationMs: Date.now() - started, skipped: [] })) && ok;
      }
      if (!ok) {
        w++;
        res.once('drain', next);
        return;
      }
    }
    res.write(
      event('filters', [
        { value: 'lang:go', label: 'Go', count: batches * 7, exhaustive: true, kind: 'lang' },
        { value: 'lang:typescript', label: 'TypeScript', count: batches * 7, exhaustive: true, kind: 'lang' },
      ]),
    );
    res.write(
      event('progress', {
        done: true,
        repositoriesCount: Math.min(REPOSITORIES, batches * template.matches),
        matchCount: batches * template.counted,
        durationMs: Date.now() - started,
        skipped: [],
      }),
    );
    res.end(event('done', {}));
  };
  next();
}

const server = http.createServer((req, res) => {
  const q = new URL(req.url ?? '/', 'http://x').searchParams.get('q') ?? '';
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  send(res, Number(/matches:(\d+)/.exec(q)?.[1] ?? 0));
});

server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on('disconnect', () => process.exit(0));
