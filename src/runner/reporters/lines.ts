import type { RunEvent } from '../events.js';
import { etaText, ProgressState, type Reporter, type RunStart } from './reporter.js';
import { StderrLines } from './stderr-lines.js';

/** Plain periodic lines, for logs of unattended runs (no TTY). */
export class LinesReporter implements Reporter {
  readonly name = 'progress lines';
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

  onEvent(event: RunEvent): void {
    if (event.type === 'run-started') this.start(event);
    else if (event.type === 'item-started') this.state.itemStarted();
    else if (event.type === 'item-ended') this.state.itemEnded(event.summary);
    else if (event.type === 'log') this.log(event.message);
    else if (event.type === 'run-ended') this.end();
  }

  private start(start: RunStart): void {
    this.state.start(start);
    this.write(`dsbench: run ${start.runId}: ${start.total} items on ${start.targets.join(', ')}${start.alreadyDone ? ` (${start.alreadyDone} already done)` : ''}`);
    this.timer = setInterval(() => this.line(), this.intervalMs);
    this.timer.unref();
  }

  log(message: string): void {
    this.write(`dsbench: ${message}`);
  }

  private end(): void {
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
