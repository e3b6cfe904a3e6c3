// A bare node server beside the viewer, for bench/view/paint.ts: the floor of a new tab's first paint (a
// two-line page), and a copy of a viewer page served with chosen parts of the viewer's response, so one
// difference at a time can be measured. `node bare.js VIEWER_URL PAGE [FOLDER]` prints its address on its first line.
// Its query parameters (all default off): headers=1 the viewer's headers (policy, no-store, ...), chunked=1
// no Content-Length, script=0 without the page's script tag, css=0 without its style sheet.
// With a FOLDER as third argument, /file/NAME is FOLDER/NAME.html as it is. Any other path is the viewer's (its script and its event stream).
import { createServer, get, request } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const [viewer, pagePath, folder] = process.argv.slice(2) as [string, string, string | undefined];

const FLOOR = '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>floor</title></head>\n<body><p>A page of two lines.</p>\n<p>Nothing to fetch.</p></body></html>\n';

const copied = await new Promise<{ text: string; headers: Record<string, string> }>((resolve, reject) => {
  get(`${viewer}${pagePath}`, (res) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', () => {
      const headers = Object.fromEntries(Object.entries(res.headers).filter(([k]) => !['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(k))) as Record<string, string>;
      resolve({ text, headers });
    });
  }).on('error', reject);
});

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://bare.invalid');
  const on = (name: string) => url.searchParams.get(name) === '1';
  const off = (name: string) => url.searchParams.get(name) === '0';
  if (url.pathname === '/floor') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(FLOOR) });
    return void res.end(FLOOR);
  }
  const file = /^\/file\/([\w-]+)$/.exec(url.pathname)?.[1];
  if (file && folder) {
    const text = readFileSync(path.join(folder, `${file}.html`), 'utf8');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    return void res.end(text);
  }
  if (url.pathname === '/copy') {
    let text = copied.text;
    if (off('script')) text = text.replace(/<script[^>]*><\/script>\n?/, '');
    if (off('css')) text = text.replace(/<style>[\s\S]*?<\/style>\n?/, '');
    const headers: Record<string, string | number> = on('headers') ? { ...copied.headers } : { 'content-type': 'text/html; charset=utf-8' };
    if (!on('chunked')) headers['content-length'] = Buffer.byteLength(text);
    res.writeHead(200, headers);
    return void res.end(text);
  }
  const forwarded = request(`${viewer}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  forwarded.on('error', () => res.destroy());
  res.on('close', () => forwarded.destroy());
  forwarded.end();
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
