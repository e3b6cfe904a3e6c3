import { BarReporter } from './bar.js';
import { LinesReporter } from './lines.js';
import type { ProgressOutput, Reporter } from './reporter.js';
import { StderrLines } from './stderr-lines.js';

export type { ProgressOutput, Reporter, RunStart } from './reporter.js';

/** Progress displays by name, drawn on the command's stderr: `bar` on a terminal, `lines` for logs, `quiet` for nothing but messages. */
export const REPORTERS = {
  bar: (stderr: ProgressOutput) => new BarReporter(stderr),
  lines: (stderr: ProgressOutput) => new LinesReporter(new StderrLines((text) => stderr.write(text))),
  quiet: (stderr: ProgressOutput): Reporter => {
    const lines = new StderrLines((text) => stderr.write(text));
    const log = (message: string) => lines.write(`dsbench: ${message}`);
    return {
      name: 'messages',
      log,
      onEvent: (event) => (event.type === 'log' ? log(event.message) : event.type === 'run-ended' && lines.close()),
    };
  },
} satisfies Record<string, (stderr: ProgressOutput) => Reporter>;

export type ReporterName = keyof typeof REPORTERS;

export function defaultReporter(quiet: boolean, isTTY: boolean): ReporterName {
  return quiet ? 'quiet' : isTTY ? 'bar' : 'lines';
}
