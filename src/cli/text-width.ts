import type { Env } from '../config/credentials.js';
import { DEFAULT_TEXT_WIDTH } from '../report/tables.js';
import type { CliOutput } from './io.js';

/** Narrower than this, a table has no room even for `header: value` lines; COLUMNS below it is read as it. */
const NARROWEST = 40;

/**
 * How wide a command's text output may be: `COLUMNS` when set to a whole number (as many command lines
 * honour it), else the terminal's width when stdout is one, else DEFAULT_TEXT_WIDTH (a CI log, a file, a pipe).
 */
export function textWidthFor(io: { readonly stdout: CliOutput; readonly env: Env }): number {
  const set = io.env['COLUMNS']?.trim();
  if (set !== undefined && /^\d+$/.test(set) && Number(set) > 0) return Math.max(NARROWEST, Number(set));
  if (io.stdout.isTTY && io.stdout.columns !== undefined && io.stdout.columns > 0) return Math.max(NARROWEST, io.stdout.columns);
  return DEFAULT_TEXT_WIDTH;
}
