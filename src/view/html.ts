import { redact } from '../redact.js';
import { VIEW_CSS, VIEW_JS_PATH } from './assets.js';

// Pages are HTML strings built with `html`: every interpolated value is escaped (and redacted) unless it
// is already a `SafeHtml` made here, so a server's text can never become markup.

export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = SafeHtml | string | number | boolean | null | undefined | readonly Value[];

/** Text as HTML text: escaped, secrets redacted, control characters but newline and tab dropped. */
export function escapeHtml(text: string): string {
  return redact(text)
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new SafeHtml(out);
}

/** An address a server sent, as a link opened apart without the referrer: only http(s) becomes a link, anything else stays its text. */
export function externalLink(href: string, text: string): SafeHtml {
  return /^https?:\/\//i.test(href) ? html`<a href="${href}" rel="noopener noreferrer nofollow" target="_blank">${text}</a>` : html`${text}`;
}

/** HTML made elsewhere and known safe (the Markdown renderer's output). */
export function trusted(text: string): SafeHtml {
  return new SafeHtml(text);
}

export interface Layout {
  title: string;
  /** The breadcrumb trail: [text, href] pairs, the last without href. */
  crumbs: Array<[string, string?]>;
  body: SafeHtml;
  /** A run id whose changes the page follows live. */
  live?: number | undefined;
  /** The database's version before the page was read (LiveUpdates.current): the page refreshes if the data moved on since. */
  version?: number | undefined;
  status?: number;
}

export function page(layout: Layout): string {
  const crumbs = layout.crumbs.map(([text, href], i) =>
    href ? html`<a href="${href}">${text}</a>${i < layout.crumbs.length - 1 ? ' / ' : ''}` : html`<span aria-current="page">${text}</span>`,
  );
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${layout.title} · dsbench</title>
<style>${trusted(VIEW_CSS)}</style>
<script src="${VIEW_JS_PATH}" defer></script>
</head>
<body${layout.live === undefined ? '' : trusted(` data-live-run="${layout.live}"`)}${layout.version === undefined ? '' : trusted(` data-version="${layout.version}"`)}>
<a class="skip" href="#app">Skip to content</a>
<header><nav aria-label="Breadcrumb"><a class="brand" href="/">dsbench</a> ${crumbs}</nav><span id="live" role="status" aria-live="polite"></span></header>
<main id="app">
${layout.body}
</main>
</body>
</html>
`.text;
}

/** A query string from parameters, leaving out empty ones. */
export function queryString(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') search.set(k, String(v));
  const text = search.toString();
  return text ? `?${text}` : '';
}

export function fmtMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '';
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms >= 100_000 ? 0 : 1)} s` : `${Math.round(ms)} ms`;
}

export function fmtPct(v: number | null | undefined): string {
  return v === null || v === undefined ? '' : `${(v * 100).toFixed(1)}%`;
}
