// Child process: in-process speeds over the same batches, no network, to read the end-to-end figures
// against: a bare loop over every char (the floor of any JS decoder), JSON.parse, and the match scanner.
import { MatchBatch } from '../../src/stream/batch.js';
import { MatchScanner } from '../../src/stream/scan-matches.js';
import { batchTemplate, patchBatch } from './corpus.js';

export interface Ceilings {
  charLoop: number;
  jsonParse: number;
  scanner: number;
}

const template = batchTemplate();
const prefix = 'event: matches\ndata: '.length;
const texts = Array.from({ length: 400 }, (_, b) => {
  const bytes = Buffer.from(template.bytes);
  patchBatch(template, b * template.matches, bytes, 0);
  return bytes.subarray(prefix, bytes.length - 2).toString('latin1');
});
const size = texts.reduce((n, t) => n + t.length, 0);

/** MB/s of `fn` over all texts, best of 5 rounds after a warm-up. */
function speed(fn: (text: string) => number): number {
  let sink = 0;
  let best = 0;
  for (let round = 0; round < 6; round++) {
    const started = performance.now();
    for (const text of texts) sink += fn(text);
    if (round > 0) best = Math.max(best, size / 1e6 / ((performance.now() - started) / 1000));
  }
  if (sink === 0) throw new Error('nothing measured');
  return best;
}

const scanner = new MatchScanner();
const batch = new MatchBatch();
const ceilings: Ceilings = {
  charLoop: speed((text) => {
    let h = 0;
    for (let i = 0; i < text.length; i++) h = (h + text.charCodeAt(i)) | 0;
    return h | 1;
  }),
  jsonParse: speed((text) => (JSON.parse(text) as unknown[]).length),
  scanner: speed((text) => {
    batch.reset();
    return scanner.scan(text, batch) ? batch.objects : 0;
  }),
};
process.stdout.write(`${JSON.stringify(ceilings)}\n`);
