import type { Query } from '../corpus/query.js';
import { hitCount, SearchRun, type Hit } from '../corpus/search.js';
import { displayLimit } from '../corpus/skipped.js';
import type { StreamFaultKind } from './faults.js';
import { FilterTally } from './filters.js';
import { toWire, type WireFormat } from './matches.js';
import type { ResolvedStreamOptions } from './options.js';
import type { StreamParams } from './params.js';
import { frame, type EventSink } from './sink.js';

/** Invalid JSON on purpose (the malformedEvent fault). */
const MALFORMED_EVENT = frame('matches', '[{"type":"content","path":');

/**
 * One search streamed to one client: matches are batched (the first batch at once, then every
 * flushIntervalMs or flushBytes), filters follow each batch when they changed, a progress event is sent
 * as a keep-alive when none was sent for progressIntervalMs, and the normal ending is final filters,
 * remaining matches, progress with done: true, an optional error, then done.
 */
export class StreamSession {
  private readonly search: SearchRun;
  private readonly filters = new FilterTally();
  private readonly format: WireFormat;
  private readonly now: () => number;
  private readonly started: number;
  private batch: string[] = [];
  private batchChars = 0;
  private flushedOnce = false;
  private lastFlush = Date.now();
  private lastProgress = Date.now();
  private displayLeft: number;
  private displayHit = false;

  constructor(
    private readonly sink: EventSink,
    private readonly options: ResolvedStreamOptions,
    private readonly params: StreamParams,
    query: Query,
    private fault: StreamFaultKind | undefined,
  ) {
    this.now = options.now ?? Date.now;
    this.started = this.now();
    this.format = { chunkMatches: params.chunkMatches, contextLines: params.contextLines, maxLineLength: params.maxLineLength };
    this.displayLeft = params.display < 0 ? Infinity : params.display;
    this.search = new SearchRun(options.corpus, query, {
      chunkMatches: params.chunkMatches,
      defaultLimit: options.defaultLimit,
      defaultTimeoutMs: options.defaultTimeoutMs,
      signal: sink.signal,
      now: this.now,
    });
  }

  async run(): Promise<void> {
    const { flushIntervalMs, flushBytes, progressIntervalMs } = this.options;
    const timer = setInterval(() => this.tick(), Math.min(flushIntervalMs, progressIntervalMs));
    let failure: string | undefined;
    try {
      if (this.fault === 'malformedEvent') await this.sink.write(MALFORMED_EVENT);
      for await (const hit of this.search.hits()) {
        this.add(hit);
        if (!this.flushedOnce || this.batchChars >= flushBytes || Date.now() - this.lastFlush >= flushIntervalMs) {
          await this.flush();
        }
        if (this.sink.closed) return;
      }
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
    } finally {
      clearInterval(timer);
    }
    await this.finish(failure);
  }

  /** Counts a hit and queues its wire form unless the display limit was reached (cutting the one crossing it). */
  private add(hit: Hit): void {
    const count = hitCount(hit);
    this.filters.add(hit, count);
    if (count > this.displayLeft) this.displayHit = true;
    if (this.displayLeft === 0) return;
    const json = JSON.stringify(toWire(hit, this.format, this.displayLeft));
    this.displayLeft -= Math.min(count, this.displayLeft);
    this.batch.push(json);
    this.batchChars += json.length + 1;
  }

  private takeBatch(): string {
    const text = this.batch.length > 0 ? frame('matches', `[${this.batch.join(',')}]`) : '';
    this.batch = [];
    this.batchChars = 0;
    return text;
  }

  private async flush(): Promise<void> {
    let text = this.takeBatch();
    if (this.filters.changed) text += this.filtersEvent();
    this.flushedOnce = true;
    this.lastFlush = Date.now();
    if (text === '') return;
    await this.sink.write(text);
    await this.faultPoint();
  }

  /** Timer: sends a batch that waited long enough, or a keep-alive progress; skips while writes are queued. */
  private tick(): void {
    if (this.sink.busy || this.sink.closed) return;
    const now = Date.now();
    if (this.batch.length > 0 && now - this.lastFlush >= this.options.flushIntervalMs) {
      this.flush().catch(() => undefined);
    } else if (now - this.lastProgress >= this.options.progressIntervalMs) {
      this.sink.write(this.progressEvent(false)).catch(() => undefined);
    }
  }

  private async finish(failure: string | undefined): Promise<void> {
    if (this.sink.closed) return;
    const text =
      this.filtersEvent() +
      this.takeBatch() +
      this.progressEvent(true) +
      (failure === undefined ? '' : frame('error', JSON.stringify({ message: failure })));
    await this.sink.write(text);
    await this.faultPoint();
    await this.sink.write(frame('done', '{}'));
    await this.sink.end();
  }

  /** Applies a pending cut or stall once, after the first batch (or before `done`). */
  private async faultPoint(): Promise<void> {
    const fault = this.fault;
    if (fault !== 'cutBeforeDone' && fault !== 'stall') return;
    this.fault = undefined;
    await (fault === 'cutBeforeDone' ? this.sink.cut() : this.sink.stall(this.options.faults?.stallMs ?? 0));
  }

  private filtersEvent(): string {
    const list = this.filters.list(this.search);
    return list.length > 0 ? frame('filters', JSON.stringify(list)) : '';
  }

  private progressEvent(done: boolean): string {
    this.lastProgress = Date.now();
    const skipped = this.displayHit ? [...this.search.skipped, displayLimit(this.params.display)] : this.search.skipped;
    return frame(
      'progress',
      JSON.stringify({
        done,
        ...(done && { repositoriesCount: this.search.repositoriesCount }),
        matchCount: this.search.matchCount,
        durationMs: Math.max(0, Math.round(this.now() - this.started)),
        skipped,
      }),
    );
  }
}
