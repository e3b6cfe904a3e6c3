import cliProgress from 'cli-progress';
import type { RunEvent } from '../events.js';
import { etaText, ProgressState, type ProgressOutput, type Reporter, type RunStart } from './reporter.js';

/** DECAWM: the terminal wraps a line wider than itself (on), or writes its last column over (off). */
const WRAP_ON = '\x1b[?7h';
const WRAP_OFF = '\x1b[?7l';

/**
 * The stream cli-progress draws on, less its cursor save and restore (ESC 7, ESC 8): it saves the cursor where
 * the bar is first drawn and restores it when the bar stops. On a screen that had not scrolled yet that is
 * above every message written since, and the summary then overwrote them (the resume command among them).
 * The bar needs no restore: it is always drawn on the last line.
 */
function withoutCursorRestore(stream: ProgressOutput): NodeJS.WritableStream {
  return {
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
    write: (chunk: string | Uint8Array, ...rest: unknown[]) =>
      (stream.write as (...args: unknown[]) => boolean)(typeof chunk === 'string' ? chunk.replace(/\x1b[78]/g, '') : chunk, ...rest),
  } as unknown as NodeJS.WritableStream;
}

/**
 * A live bar on a terminal: done of total, running, errors, checks, credits so far, ETA. Every message shown
 * while it is drawn goes through onLog, which clears the bar's line first, so the two never mix.
 */
export class BarReporter implements Reporter {
  readonly name = 'progress bar';
  private readonly state = new ProgressState();
  private readonly bar: cliProgress.SingleBar;
  private drawn = false;

  constructor(private readonly stream: ProgressOutput) {
    this.bar = new cliProgress.SingleBar(
      {
        // Drawn from the state at every frame, so the ETA moves between items and shows `--` until it is known.
        format: (options, params) =>
          `dsbench ${cliProgress.Format.BarFormat(params.progress, options)} ${params.value}/${params.total} | running ${this.state.running} | ` +
          `${this.state.counts()} | ${etaText(this.state.etaSeconds())}`,
        stream: withoutCursorRestore(stream),
        hideCursor: true,
        // A message clears the bar's line; the next frame must draw it again even if nothing changed.
        forceRedraw: true,
      },
      cliProgress.Presets.shades_classic,
    );
  }

  onEvent(event: RunEvent): void {
    if (event.type === 'run-started') this.start(event);
    else if (event.type === 'item-started') {
      this.state.itemStarted();
      this.bar.update(this.state.done);
    } else if (event.type === 'item-ended') {
      this.state.itemEnded(event.summary);
      this.bar.update(this.state.done);
    } else if (event.type === 'log') this.log(event.message);
    else if (event.type === 'run-ended') this.end();
  }

  private start(start: RunStart): void {
    this.state.start(start);
    this.bar.start(start.total, start.alreadyDone);
    this.drawn = true;
  }

  log(message: string): void {
    // The message takes the bar's line (cleared first) and the bar is drawn again below it. While the bar is
    // drawn the terminal's line wrap is off (cli-progress cuts its line at the terminal's width), so a message
    // is written with it back on: one wider than the terminal wraps onto lines of its own instead of being
    // cut, its last column written over and over (a resume command lost at 160 columns).
    const live = this.drawn && this.stream.isTTY;
    this.stream.write(`${live ? `\r\x1b[2K${WRAP_ON}` : ''}dsbench: ${message}\n${live ? WRAP_OFF : ''}`);
    if (this.drawn) this.bar.render();
  }

  private end(): void {
    if (this.drawn) this.bar.stop();
    this.drawn = false;
  }
}
