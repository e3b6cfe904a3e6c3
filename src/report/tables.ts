import { redact } from '../redact.js';
import { terminalJson, terminalSafe } from '../terminal-text.js';
import { type Align, fitTable } from './text-fit.js';

// Tables for people: Markdown (CI job summaries, GitHub renders it) and aligned plain text (terminals).
// A section is rendered either way from the same cells.

export type { Align };

/**
 * What text for a terminal is fitted to when the caller does not say: a CI log's width. The CLI gives the
 * terminal's own (src/cli/text-width.ts).
 */
export const DEFAULT_TEXT_WIDTH = 120;

export interface Table {
  headers: string[];
  rows: string[][];
  /** Per column; numbers read best right-aligned. Default left. */
  align?: Align[];
}

/**
 * A cell of free text safe inside a Markdown table: one line, pipes escaped, no raw HTML, no link a server
 * wrote (see mdText), no control characters, redacted.
 */
export function mdCell(text: string): string {
  return mdText(text).replace(/[\t\n]+/g, ' ').replace(/\|/g, '\\|');
}

/**
 * Free text for Markdown: no raw HTML, no live link, no control characters but newline and tab, redacted.
 * Link syntax is escaped, and a word GitHub would autolink (`https://`, `www.`, an e-mail address) is a code
 * span: GitHub links such words again after parsing, in the text with its escapes and character references
 * decoded (so `https&#58;//` or `https\://` would still link), but never inside code. Backticks and `&` are
 * escaped, so no text of the server's opens a code span or forms a reference.
 */
export function mdText(text: string): string {
  const safe = terminalSafe(redact(text));
  if (!LINKABLE.test(safe)) return mdEscape(safe);
  return safe
    .split(/(\s+)/)
    .map((word) => (LINKABLE.test(word) ? inertWord(word) : mdEscape(word)))
    .join('');
}

/** What GitHub's autolinking starts a link at: a scheme's `://`, `www.`, `mailto:`, `xmpp:`, an address's `@` before a dot. */
const LINKABLE = /:\/\/|www\.|mailto:|xmpp:|@[^\s@]*\./i;

function mdEscape(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/[[\]`]/g, '\\$&')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

const SENTENCE_END = '.,;:!?';

/** A word as a code span, but the punctuation ending a sentence after it and parentheses around it. */
function inertWord(word: string): string {
  let end = word.length;
  while (end > 0 && SENTENCE_END.includes(word[end - 1]!)) end--;
  const core = word.slice(0, end);
  if (core.length > 2 && core.startsWith('(') && core.endsWith(')')) return `(${codeSpan(core.slice(1, -1))})${word.slice(end)}`;
  return `${codeSpan(core)}${word.slice(end)}`;
}

/** `text` as it is, in a code span: fenced by more backticks than any run in it, spaced when it starts or ends with one. */
function codeSpan(text: string): string {
  const longest = (text.match(/`+/g) ?? []).reduce((n, run) => Math.max(n, run.length), 0);
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** Free text for a terminal: one line, no control characters, redacted, shortened. */
export function plainCell(text: string, max = 120): string {
  const flat = terminalSafe(redact(text)).replace(/[\t\n]+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function mdTable(table: Table): string {
  if (table.rows.length === 0) return '';
  const sep = table.headers.map((_, i) => (table.align?.[i] === 'right' ? '---:' : '---'));
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(table.headers.map(mdCell)), line(sep), ...table.rows.map((r) => line(r.map(mdCell)))].join('\n') + '\n';
}

/** A terminal table's cell is cut past this many characters (a server's whole error page is no cell); shorter ones wrap. */
const TEXT_CELL_MAX = 500;

/** A table as aligned text at most `width` columns wide: wrapped, or one block per row, when it is wider (text-fit.ts). */
export function textTable(table: Table, width = DEFAULT_TEXT_WIDTH): string {
  if (table.rows.length === 0) return '';
  const all = [table.headers, ...table.rows].map((r) => r.map((c) => plainCell(c, TEXT_CELL_MAX)));
  return fitTable(all, table.align ?? [], width);
}

// ---- number formatting for people (CSV keeps full precision) ----

const dash = '–';

export function fmtInt(n: number | null | undefined): string {
  return n === null || n === undefined ? dash : Math.round(n).toLocaleString('en-US');
}

/** A count and its noun, plural unless 1: "1 question", "3 questions", `plural(2, 'search', 'searches')` "2 searches". */
export function plural(n: number, word: string, words = `${word}s`): string {
  return `${fmtInt(n)} ${n === 1 ? word : words}`;
}

/** A sum of credits; none recorded means the API reported none (the versioned API has no stats), not zero. */
export function fmtCredits(n: number | null | undefined): string {
  return n === null || n === undefined ? 'not measured' : fmtNum(n, 2);
}

/** `812 KB`, `3.4 MB`: a size on disk in binary units. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toLocaleString('en-US', { maximumFractionDigits: 1 })} ${units[unit]}`;
}

export function fmtNum(n: number | null | undefined, digits = 1): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return dash;
  return n.toLocaleString('en-US', { minimumFractionDigits: 0, maximumFractionDigits: digits });
}

/** Milliseconds as seconds: 1234 -> "1.2 s". */
export function fmtSeconds(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? dash : `${(ms / 1000).toFixed(1)} s`;
}

/** A fraction as a percentage: 0.875 -> "87.5%". */
export function fmtPct(fraction: number | null | undefined, digits = 1): string {
  return fraction === null || fraction === undefined || !Number.isFinite(fraction) ? dash : `${(fraction * 100).toFixed(digits)}%`;
}

/** A signed percentage: 0.12 -> "+12.0%". */
export function fmtSignedPct(fraction: number | null | undefined, digits = 1): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return dash;
  const s = (fraction * 100).toFixed(digits);
  return fraction > 0 ? `+${s}%` : `${s}%`;
}

export function fmtSigned(n: number | null | undefined, digits = 1): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return dash;
  const s = fmtNum(n, digits);
  return n > 0 ? `+${s}` : s;
}

/** "a / b / c" of three formatted values. */
export function triple(values: Array<number | null>, format: (n: number | null) => string): string {
  return values.map(format).join(' / ');
}

/** A list capped for a summary: the first `max` and a line saying how many more there are. */
export function capped<T>(items: readonly T[], max: number, total = items.length): { shown: readonly T[]; more: number } {
  return { shown: items.slice(0, max), more: Math.max(0, total - Math.min(max, items.length)) };
}

/** JSON for output (report.json, compare.json, --json): every string value redacted, like the CSV cells. */
export function safeJson(value: unknown): string {
  return `${terminalJson(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? redact(v) : v), 2))}\n`;
}

/** `2 of 5 question texts (the check failed: ...)`: creates given up that no end-of-run check looked for, in the run summary's and the report's words. */
export function uncheckedLostCreates(lost: { texts: number; unchecked: number; error: string | null }): string {
  const why = lost.error === null ? 'the run ended before its check' : `the check failed: ${lost.error}`;
  return `${fmtInt(lost.unchecked)} of ${fmtInt(lost.texts)} question text${lost.texts === 1 ? '' : 's'} (${why})`;
}

/** `1 (+1 expected)`: items that ended in an error, the expected ones apart, in the run summary's words. */
export function itemErrorsText(counts: { itemErrors: number; itemExpectedErrors: number }): string {
  return `${fmtInt(counts.itemErrors)}${counts.itemExpectedErrors > 0 ? ` (+${fmtInt(counts.itemExpectedErrors)} expected)` : ''}`;
}
