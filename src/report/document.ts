import { redact } from '../redact.js';
import { terminalSafe } from '../terminal-text.js';
import { type Table, mdCell, mdTable, mdText, plainCell, textTable } from './tables.js';

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

export function renderText(blocks: readonly Block[]): string {
  const out: string[] = [];
  for (const b of blocks) {
    if (b.markdownOnly) continue;
    if (b.kind === 'heading') {
      const t = textInline(b.text);
      out.push(b.level === 1 ? `${t}\n${'='.repeat(Math.min(100, [...t].length))}\n` : `${t}\n`);
    } else if (b.kind === 'para') out.push(`${textInline(b.text)}\n`);
    else if (b.kind === 'callout') out.push(`!! ${textInline(b.text)}\n`);
    else if (b.kind === 'list') out.push(b.items.map((i) => `  - ${textInline(i)}`).join('\n') + '\n');
    else if (b.table.rows.length > 0) out.push(textTable(b.table));
  }
  return out.join('\n');
}
