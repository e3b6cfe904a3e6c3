// Child process: in-process speeds over the same batches, no network, to read the end-to-end figures
// against: a bare loop over every char (what any decoder that visits every char in JS pays at least),
// JSON.parse, the match scanner on its general path only and with learned shapes, and the whole decode +
// tally of runSearch (decoder, consumer, tally) over the stream's bytes in 64 KB chunks, as the socket
// hands them over, and the same decoder feeding an unvalidated counter (unchecked-count.ts). Speeds are MB
// of event text (or of stream bytes for the two decoders) per second of CPU time.
import { MatchBatch } from '../../src/stream/batch.js';
import { EventConsumer } from '../../src/stream/consume.js';
import { EventDecoder } from '../../src/stream/decoder.js';
import { DEFAULT_MAX_DISTINCT } from '../../src/stream/distinct.js';
import { MatchScanner } from '../../src/stream/scan-matches.js';
import { Tally } from '../../src/stream/tally.js';
import { batchTemplate, patchBatch } from './corpus.js';
import { uncheckedCount } from './unchecked-count.js';

export interface Ceilings {
  charLoop: number;
  jsonParse: number;
  general: number;
  scanner: number;
  pipeline: number;
  /** Decoder plus uncheckedCount: what skipping validation could reach at best. */
  unchecked: number;
}

const template = batchTemplate();
const prefix = 'event: matches\ndata: '.length;
const BATCHES = 400;
const stream = Buffer.allocUnsafe(template.bytes.length * BATCHES);
for (let b = 0; b < BATCHES; b++) {
  template.bytes.copy(stream, b * template.bytes.length);
  patchBatch(template, b * template.matches, stream, b * template.bytes.length);
}
// Each event's data as the decoder hands it over: a slice of a longer string.
const texts = Array.from({ length: BATCHES }, (_, b) => {
  const event = stream.toString('latin1', b * template.bytes.length, (b + 1) * template.bytes.length);
  return event.slice(prefix, event.length - 2);
});
const size = texts.reduce((n, t) => n + t.length, 0);
const chunks: Buffer[] = [];
for (let at = 0; at < stream.length; at += 64 * 1024) chunks.push(stream.subarray(at, at + 64 * 1024));

const cpuMs = (): number => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

/** MB/s (of `bytes` a round) of `round`, best of 5 rounds after a warm-up. */
function best(bytes: number, round: () => number): number {
  let sink = 0;
  let fastest = 0;
  for (let i = 0; i < 6; i++) {
    const started = cpuMs();
    sink += round();
    if (i > 0) fastest = Math.max(fastest, bytes / 1e6 / ((cpuMs() - started) / 1000));
  }
  if (sink === 0) throw new Error('nothing measured');
  return fastest;
}

/** MB/s of `fn` over all texts. */
const speed = (fn: (text: string) => number): number =>
  best(size, () => {
    let sink = 0;
    for (const text of texts) sink += fn(text);
    return sink;
  });

const general = new MatchScanner({ learn: false });
const scanner = new MatchScanner();
const batch = new MatchBatch();
const ceilings: Ceilings = {
  charLoop: speed((text) => {
    let h = 0;
    for (let i = 0; i < text.length; i++) h = (h + text.charCodeAt(i)) | 0;
    return h | 1;
  }),
  jsonParse: speed((text) => (JSON.parse(text) as unknown[]).length),
  general: speed((text) => {
    batch.reset();
    return general.scan(text, batch) ? batch.objects : 0;
  }),
  scanner: speed((text) => {
    batch.reset();
    return scanner.scan(text, batch) ? batch.objects : 0;
  }),
  pipeline: best(stream.length, () => {
    const tally = new Tally({ maxDistinct: DEFAULT_MAX_DISTINCT });
    const consumer = new EventConsumer(tally);
    const decoder = new EventDecoder((name, data) => consumer.event(name, data));
    for (const chunk of chunks) decoder.feed(chunk);
    return tally.result().counted;
  }),
  unchecked: best(stream.length, () => {
    let counted = 0;
    const decoder = new EventDecoder((name, data) => {
      if (name === 'matches') counted += uncheckedCount(data);
    });
    for (const chunk of chunks) decoder.feed(chunk);
    if (counted !== template.counted * BATCHES) throw new Error(`uncheckedCount counted ${counted}, not ${template.counted * BATCHES}`);
    return counted;
  }),
};
process.stdout.write(`${JSON.stringify(ceilings)}\n`);
