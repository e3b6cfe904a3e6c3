import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { redact } from '../../redact.js';
import { clientScript } from './client-script.js';
import { PAGE_STYLE } from './page-style.js';
import { partialOf } from '../whole-file.js';

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
  return embedJsonText(JSON.stringify(data));
}

function embedJsonText(json: string): string {
  return redact(json).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function pageHead(title: string): string {
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
<script id="dsbench-data" type="application/json">`;
}

function pageTail(): string {
  return `</script>
<script>${scriptSafe(chartJsSource())}</script>
<script>${scriptSafe(clientScript())}</script>
</body>
</html>
`;
}

export function htmlPage(title: string, data: unknown): string {
  return pageHead(title) + embedJson(data) + pageTail();
}

/**
 * A page written to its file as it is made: the embedded data goes out piece by piece (each piece redacted
 * and made safe inside its script element), so the rows of a large run never sit in memory all at once.
 * The file appears whole or not at all: it is written beside and renamed at the end.
 */
export class HtmlPageFile {
  private readonly partial: string;
  private readonly fd: number;
  private pending: string[] = [];
  private size = 0;

  constructor(
    private readonly file: string,
    title: string,
  ) {
    this.partial = partialOf(file);
    this.fd = openSync(this.partial, 'w');
    this.write(pageHead(title));
  }

  /** JSON text of the embedded data (a whole value, or the punctuation between values). */
  json(text: string): void {
    this.write(embedJsonText(text));
  }

  value(data: unknown): void {
    this.json(JSON.stringify(data));
  }

  end(): void {
    this.write(pageTail());
    this.flush();
    closeSync(this.fd);
    renameSync(this.partial, this.file);
  }

  /** Closes and removes the unfinished file after a failure. */
  abandon(): void {
    try {
      closeSync(this.fd);
    } catch {
      // Closed already: end() failed after closing.
    }
    rmSync(this.partial, { force: true });
  }

  private write(text: string): void {
    this.pending.push(text);
    this.size += text.length;
    if (this.size > 1 << 20) this.flush();
  }

  private flush(): void {
    writeSync(this.fd, this.pending.join(''));
    this.pending = [];
    this.size = 0;
  }
}
