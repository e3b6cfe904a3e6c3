import type { ItemSummary } from '../item-summary.js';
import { etaText, ProgressState, type Reporter, type RunStart } from './reporter.js';
import { StderrLines } from './stderr-lines.js';

/** Plain periodic lines, for logs of unattended runs (no TTY). */
export class LinesReporter implements Reporter {
  private readonly state = new ProgressState();
  private timer: NodeJS.Timeout | undefined;
  private readonly write: (line: string) => void;
  private readonly stderr: StderrLines | undefined;

  constructor(output: ((line: string) => void) | StderrLines, private readonly intervalMs = 10_000) {
    if (output instanceof StderrLines) {
      this.stderr = output;
      this.write = (line) => output.write(line);
    } else this.write = output;
  }

  onRunStart(start: RunStart): void {
    this.state.start(start);
    this.write(`dsbench: run ${start.runId}: ${start.total} items on ${start.targets.join(', ')}${start.alreadyDone ? ` (${start.alreadyDone} already done)` : ''}`);
    this.timer = setInterval(() => this.line(), this.intervalMs);
    this.timer.unref();
  }

  onItemStart(): void {
    this.state.itemStarted();
  }

  onItemEnd(_key: string, summary: ItemSummary): void {
    this.state.itemEnded(summary);
  }

  onLog(message: string): void {
    this.write(`dsbench: ${message}`);
  }

  onRunEnd(): void {
    clearInterval(this.timer);
    this.line();
    // Before whatever the command prints next.
    this.stderr?.close();
  }

  private line(): void {
    const s = this.state;
    this.write(`dsbench: ${s.done}/${s.total} done, ${s.running} running, ${s.counts()}, ${etaText(s.etaSeconds())}`);
  }
}
