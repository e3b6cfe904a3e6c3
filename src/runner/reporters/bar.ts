import cliProgress from 'cli-progress';
import type { ItemSummary } from '../question-runner.js';
import { ProgressState, type Reporter, type RunStart } from './reporter.js';

/** A live bar on a terminal: done of total, running, errors, credits so far, ETA. */
export class BarReporter implements Reporter {
  private readonly state = new ProgressState();
  private readonly bar = new cliProgress.SingleBar(
    {
      format: 'dsbench {bar} {value}/{total} | running {running} | errors {errors} | credits {credits} | ETA {eta_formatted}',
      stream: process.stderr,
      hideCursor: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );

  onRunStart(start: RunStart): void {
    this.state.start(start);
    this.bar.start(start.total, start.alreadyDone, this.payload());
  }

  onItemStart(): void {
    this.state.itemStarted();
    this.bar.update(this.state.done, this.payload());
  }

  onItemEnd(_key: string, summary: ItemSummary): void {
    this.state.itemEnded(summary);
    this.bar.update(this.state.done, this.payload());
  }

  onLog(message: string): void {
    this.bar.stop();
    process.stderr.write(`${message}\n`);
    this.bar.start(this.state.total, this.state.done, this.payload());
  }

  onRunEnd(): void {
    this.bar.stop();
  }

  private payload() {
    return { running: this.state.running, errors: this.state.errors, credits: this.state.credits };
  }
}
