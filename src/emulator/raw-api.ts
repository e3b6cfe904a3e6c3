import type { Corpus } from './corpus/corpus.js';
import { readRaw } from './corpus/raw.js';
import { sendText } from './http-io.js';
import type { Route, RouteHandler } from './routes.js';

/**
 * `GET /<repo>[@<rev>]/-/raw/<path>`: a file of the corpus as plain text, a folder as its entries one per
 * line (the repository's root when no path is given); 404 when the repository, the revision (each
 * repository has one, its commit) or the path does not exist.
 */
export function rawRoutes(corpus: Corpus): Route[] {
  const handler: RouteHandler = async (_req, res, ctx) => {
    const entry = await readRaw(corpus, ctx.params.repo ?? '', ctx.params.path ?? '');
    if (!entry) return sendText(res, 404, 'Not found');
    if (entry.kind === 'dir') return sendText(res, 200, entry.entries.join('\n'));
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    res.end(entry.text);
  };
  return [
    { method: 'GET', path: '/*repo/-/raw/*path', operation: 'raw.file', handler },
    { method: 'GET', path: '/*repo/-/raw', operation: 'raw.file', handler },
  ];
}
