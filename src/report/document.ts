import { redact } from '../redact.js';
import { terminalSafe } from '../terminal-text.js';
import { DEFAULT_TEXT_WIDTH, type Table, mdCell, mdTable, mdText, plainCell, textTable } from './tables.js';
import { fillLines, textWidth, wordsOf } from './text-fit.js';

// A summary for people as a list of blocks, rendered as Markdown (for $GITHUB_STEP_SUMMARY and report.md)
// or as plain text (for a terminal). Values inside text are marked so each renderer can escape them.

export type Inline = string | { code: string } | { strong: string };

export type Block = (
  | { kind: 'heading'; level: 1 | 2 | 3; text: Inline[] }
  | { kind: 'para'; text: Inline[] }
  /** A warning people must not miss (a run in progress, a failed gate). */
  | { kind: 'callout'; text: Inline[] }
  | { kind: 'list'; items: Inline[][] }
  | { kind: 'table'; table: Table }
) & {
  /** For report.md and job summaries only: too long for a terminal. */
  markdownOnly?: boolean;
  /** For the terminal only: a shorter stand-in for a markdownOnly block. */
  textOnly?: boolean;
};

function mdInline(parts: Inline[]): string {
  return parts
    .map((p) => {
      if (typeof p === 'string') return mdText(p);
      if ('code' in p) return `\`${terminalSafe(redact(p.code)).replace(/`/g, "'").replace(/\n/g, ' ')}\``;
      return `**${mdCell(p.strong)}**`;
    })
    .join('');
}

/** Inline content as plain text (code spans and emphasis without their marks). */
export function textInline(parts: Inline[]): string {
  return parts.map((p) => (typeof p === 'string' ? plainCell(p, 10_000) : 'code' in p ? plainCell(p.code, 10_000) : plainCell(p.strong, 10_000))).join('');
}

export function renderMarkdown(blocks: readonly Block[]): string {
  const out: string[] = [];
  for (const b of blocks) {
    if (b.textOnly) continue;
    if (b.kind === 'heading') out.push(`${'#'.repeat(b.level + 1)} ${mdInline(b.text)}\n`);
    else if (b.kind === 'para') out.push(`${mdInline(b.text)}\n`);
    else if (b.kind === 'callout') out.push(`> [!WARNING]\n> ${mdInline(b.text)}\n`);
    else if (b.kind === 'list') out.push(b.items.map((i) => `- ${mdInline(i)}`).join('\n') + '\n');
    else if (b.table.rows.length > 0) out.push(mdTable(b.table));
  }
  return out.join('\n');
}

/**
 * The blocks as plain text, every line at most `width` columns: text wraps at spaces (a code span, such as a
 * command, only when it is wider than a whole line), a list item's lines under its text, tables fitted.
 */
export function renderText(blocks: readonly Block[], width = DEFAULT_TEXT_WIDTH): string {
  const out: string[] = [];
  for (const b of blocks) {
    if (b.markdownOnly) continue;
    if (b.kind === 'heading') {
      const lines = wrapInline(b.text, width);
      out.push(b.level === 1 ? `${lines}\n${'='.repeat(Math.min(100, width, [...textInline(b.text)].length))}\n` : `${lines}\n`);
    } else if (b.kind === 'para') out.push(`${wrapInline(b.text, width)}\n`);
    else if (b.kind === 'callout') out.push(`${wrapInline(b.text, width, '!! ', '   ')}\n`);
    else if (b.kind === 'list') out.push(b.items.map((i) => wrapInline(i, width, '  - ', '    ')).join('\n') + '\n');
    else if (b.table.rows.length > 0) out.push(textTable(b.table, width));
  }
  return out.join('\n');
}

/** Inline content as lines of at most `width` columns, the first after `first`, the others after `rest`. */
function wrapInline(parts: Inline[], width: number, first = '', rest = first): string {
  const whole = first + textInline(parts);
  if (textWidth(whole) <= width) return whole;
  const lines = fillLines(inlineWords(parts, width - rest.length), Math.max(1, width - first.length), Math.max(1, width - rest.length));
  return lines.map((l, n) => (n === 0 ? first : rest) + l).join('\n');
}

/** The words of inline content: a code span is part of one word, unless it is wider than `width`. */
function inlineWords(parts: Inline[], width: number): string[] {
  const words: string[] = [];
  let word = '';
  const end = (): void => {
    if (word !== '') words.push(word);
    word = '';
  };
  for (const p of parts) {
    const text = textInline([p]);
    if (typeof p === 'object' && 'code' in p && textWidth(text) <= width) {
      word += text;
      continue;
    }
    // wordsOf drops the spaces at either end; they still end the word before, or the last word.
    if (/^\s/.test(text)) end();
    const inner = wordsOf(text);
    inner.forEach((w, n) => {
      if (n > 0) end();
      word += w;
    });
    if (/\s$/.test(text)) end();
  }
  end();
  return words;
}
