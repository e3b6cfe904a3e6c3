import type { Query } from '../corpus/query.js';
import { hitCount, SearchRun, type Hit } from '../corpus/search.js';
import type { StreamFaultKind } from './faults.js';
import { FilterTally } from './filters.js';
import { toWire, type WireFormat } from './matches.js';
import type { ResolvedStreamOptions, StreamDeps } from './options.js';
import type { StreamParams } from './params.js';
import { frame, type EventSink } from './sink.js';

/** Invalid JSON on purpose (the malformedEvent fault). */
const MALFORMED_EVENT = frame('matches', '[{"type":"content","path":');

/**
 * One search streamed to one client, paced like the server (its handler and the documentation's example):
 * - the first batch goes at once, as filters then matches;
 * - every flushIntervalMs (or when a batch passes flushBytes): filters when they changed, the matches
 *   waiting, then progress when it changed; so exclusions known before any match show at the first tick;
 * - progress as a keep-alive when none was sent for progressIntervalMs;
 * - at the end: filters, remaining matches, progress with done: true, an optional error, then done.
 * Intervals are emulated time (scaled by timeScale); the search itself runs at real speed, its timeout
 * counted in work (searchStepMs), its reported duration in real time.
 */
export class StreamSession {
  private readonly search: SearchRun;
  private readonly filters = new FilterTally();
  private readonly format: WireFormat;
  private readonly now: () => number;
  private readonly started: number;
  private readonly flushEveryMs: number;
  private readonly keepAliveMs: number;
  private batch: string[] = [];
  private batchChars = 0;
  private flushedOnce = false;
  private lastFlush = performance.now();
  private lastProgress = performance.now();
  /** The progress last sent, without durationMs: an initial zero state counts as sent. */
  private lastProgressState = '';
  private displayLeft: number;
  private displayHit = false;

  constructor(
    private readonly sink: EventSink,
    private readonly deps: StreamDeps,
    private readonly options: ResolvedStreamOptions,
    private readonly params: StreamParams,
    query: Query,
    private fault: StreamFaultKind | undefined,
  ) {
    // Monotonic, as a server's own timer is: a step of the wall clock must not change a duration.
    this.now = deps.now ?? (() => performance.now());
    this.started = this.now();
    this.flushEveryMs = options.flushIntervalMs * options.timeScale;
    this.keepAliveMs = options.progressIntervalMs * options.timeScale;
    this.format = { chunkMatches: params.chunkMatches, contextLines: params.contextLines, maxLineLength: params.maxLineLength };
    this.displayLeft = params.display < 0 ? Infinity : params.display;
    this.search = new SearchRun(deps.corpus, query, {
      chunkMatches: params.chunkMatches,
      defaultLimit: options.defaultLimit,
      defaultTimeoutMs: options.defaultTimeoutMs,
      stepMs: options.searchStepMs,
      signal: sink.signal,
      onResolved: () => {
        this.filters.dirty = true;
      },
    });
    this.lastProgressState = this.progressState();
  }

  async run(): Promise<void> {
    const timer = setInterval(() => this.tick(), Math.max(1, Math.min(this.flushEveryMs, this.keepAliveMs)));
    let failure: string | undefined;
    try {
      if (this.fault === 'malformedEvent') await this.sink.write(MALFORMED_EVENT);
      for await (const hit of this.search.hits()) {
        this.add(hit);
        if (!this.flushedOnce) {
          this.flushedOnce = true;
          await this.flush(false);
        } else if (this.batchChars >= this.options.flushBytes || performance.now() - this.lastFlush >= this.flushEveryMs) await this.flush(true);
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

  /** The first batch goes out at once without progress, as in the documentation's example. */
  private async flush(withProgress: boolean): Promise<void> {
    const text = this.changedFilters() + this.takeBatch() + (withProgress ? this.changedProgress() : '');
    this.lastFlush = performance.now();
    if (text === '') return;
    await this.sink.write(text);
    await this.faultPoint();
  }

  /** Timer: a flush when its interval passed and something waits, else a keep-alive; skips while writes are queued. */
  private tick(): void {
    if (this.sink.busy || this.sink.closed) return;
    const now = performance.now();
    const waiting = this.batch.length > 0 || this.filters.dirty || this.progressState() !== this.lastProgressState;
    if (waiting && now - this.lastFlush >= this.flushEveryMs) {
      this.flush(true).catch(() => undefined);
    } else if (now - this.lastProgress >= this.keepAliveMs) {
      this.sink.write(this.progressEvent(false)).catch(() => undefined);
    }
  }

  private async finish(failure: string | undefined): Promise<void> {
    if (this.sink.closed) return;
    const list = this.filters.list(this.search);
    const text =
      (list.length > 0 ? frame('filters', JSON.stringify(list)) : '') +
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
    await (fault === 'cutBeforeDone' ? this.sink.cut() : this.sink.stall(this.deps.faults?.stallMs ?? 0));
  }

  private changedFilters(): string {
    const list = this.filters.changedList(this.search);
    return list && list.length > 0 ? frame('filters', JSON.stringify(list)) : '';
  }

  private changedProgress(): string {
    return this.progressState() === this.lastProgressState ? '' : this.progressEvent(false);
  }

  private skipped() {
    return this.search.skipped(this.displayHit ? this.params.display : undefined);
  }

  private progressState(): string {
    return JSON.stringify([this.search.matchCount, this.skipped()]);
  }

  /** Only the final progress carries repositoriesCount. */
  private progressEvent(done: boolean): string {
    this.lastProgress = performance.now();
    this.lastProgressState = this.progressState();
    return frame(
      'progress',
      JSON.stringify({
        done,
        ...(done && { repositoriesCount: this.search.repositoriesCount }),
        matchCount: this.search.matchCount,
        durationMs: Math.max(0, Math.round(this.now() - this.started)),
        skipped: this.skipped(),
      }),
    );
  }
}
