import cliProgress from 'cli-progress';
import type { ItemSummary } from '../question-runner.js';
import { etaText, ProgressState, type Reporter, type RunStart } from './reporter.js';

/**
 * A live bar on a terminal: done of total, running, errors, checks, credits so far, ETA. Every message shown
 * while it is drawn goes through onLog, which clears the bar's line first, so the two never mix.
 */
export class BarReporter implements Reporter {
  private readonly state = new ProgressState();
  private readonly bar: cliProgress.SingleBar;
  private drawn = false;

  constructor(private readonly stream: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr) {
    this.bar = new cliProgress.SingleBar(
      {
        // Drawn from the state at every frame, so the ETA moves between items and shows `--` until it is known.
        format: (options, params) =>
          `dsbench ${cliProgress.Format.BarFormat(params.progress, options)} ${params.value}/${params.total} | running ${this.state.running} | ` +
          `${this.state.counts()} | ${etaText(this.state.etaSeconds())}`,
        stream: stream as NodeJS.WritableStream,
        hideCursor: true,
        // A message clears the bar's line; the next frame must draw it again even if nothing changed.
        forceRedraw: true,
      },
      cliProgress.Presets.shades_classic,
    );
  }

  onRunStart(start: RunStart): void {
    this.state.start(start);
    this.bar.start(start.total, start.alreadyDone);
    this.drawn = true;
  }

  onItemStart(): void {
    this.state.itemStarted();
    this.bar.update(this.state.done);
  }

  onItemEnd(_key: string, summary: ItemSummary): void {
    this.state.itemEnded(summary);
    this.bar.update(this.state.done);
  }

  onLog(message: string): void {
    // The message takes the bar's line (cleared first) and the bar is drawn again below it.
    this.stream.write(`${this.drawn && this.stream.isTTY ? '\r\x1b[2K' : ''}dsbench: ${message}\n`);
    if (this.drawn) this.bar.render();
  }

  onRunEnd(): void {
    if (this.drawn) this.bar.stop();
    this.drawn = false;
  }
}
