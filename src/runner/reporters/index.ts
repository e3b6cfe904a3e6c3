import { BarReporter } from './bar.js';
import { LinesReporter } from './lines.js';
import type { Reporter } from './reporter.js';
import { StderrLines } from './stderr-lines.js';

export type { Reporter, RunStart } from './reporter.js';

/** Progress displays by name: `bar` on a terminal, `lines` for logs, `quiet` for nothing but messages. */
export const REPORTERS = {
  bar: () => new BarReporter(),
  lines: () => new LinesReporter(),
  quiet: (): Reporter => {
    const stderr = new StderrLines();
    return { onLog: (message) => stderr.write(`dsbench: ${message}`), onRunEnd: () => stderr.close() };
  },
} satisfies Record<string, () => Reporter>;

export type ReporterName = keyof typeof REPORTERS;

export function defaultReporter(quiet: boolean, isTTY: boolean): ReporterName {
  return quiet ? 'quiet' : isTTY ? 'bar' : 'lines';
}
