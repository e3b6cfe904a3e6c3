import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { redact } from '../../http/redact.js';
import { CLIENT_SCRIPT, PAGE_STYLE } from './client.js';

// One self-contained HTML file: the charting library, the data and the viewer inlined, nothing fetched,
// so it opens offline from a CI artifact or an e-mail attachment.

let chartJs: string | undefined;

/** Chart.js's UMD build, read from the installed package (pinned in package.json). */
export function chartJsSource(): string {
  if (chartJs === undefined) {
    const main = createRequire(import.meta.url).resolve('chart.js');
    chartJs = readFileSync(path.join(path.dirname(main), 'chart.umd.min.js'), 'utf8');
  }
  return chartJs;
}

/** Text inside a <script> element must not close it early. */
function scriptSafe(text: string): string {
  return text.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** JSON embedded in the page; every string passes through the secret redaction first. */
export function embedJson(data: unknown): string {
  return redact(JSON.stringify(data)).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function htmlPage(title: string, data: unknown): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="dsbench">
<title>${escapeHtml(title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<main id="app"><p>Loading…</p></main>
<script id="dsbench-data" type="application/json">${embedJson(data)}</script>
<script>${scriptSafe(chartJsSource())}</script>
<script>${scriptSafe(CLIENT_SCRIPT)}</script>
</body>
</html>
`;
}
