import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headersFor, connectionFor } from '../../src/config/credentials.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { Transport } from '../../src/http/transport.js';
import { runSearch } from '../../src/stream/index.js';

// Counts through dsbench (emulator stream + client tally) against counts this test makes itself by
// reading the same files with plain string and RegExp code: no dsbench search code is involved.

const FILES: Record<string, string> = {
  'github.com/acme/alpha/lib/main.ts': 'export function foo() { return Foo + foo; }\n// foo again\nconst fooBar = 1;\n',
  'github.com/acme/alpha/lib/util.js': 'module.exports = { foo: 1, FOO: 2 };\nfoo(); foo2(); fo(); foooo3;\n',
  'github.com/acme/alpha/README.md': '# Alpha\n\nUse `foo` to do things. Foo is great.\n',
  'github.com/acme/beta/src/app.py': 'def foo():\n    return "foo" * 3  # Foo\n\nfoo()\n',
  'github.com/acme/beta/src/data.json': '{"foo": [1, 2], "bar": "FOO"}\n',
  'github.com/acme/gamma/main.go': 'package main\n\nfunc Foo() {}\nfunc foo9() {}\n// héllo foo ünïcode foo\n',
};

let root: string;
let emulator: RunningEmulator;
let transport: Transport;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'dsbench-corpus-'));
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  emulator = await startEmulator({ corpus: { dir: root, archived: [], forks: [] } }, { search: async () => [] });
  transport = new Transport({ endpoint: emulator.url, headers: headersFor(connectionFor(emulator.url, emulator.adminToken, {}), 'stream') });
});

afterAll(async () => {
  await transport.close();
  await emulator.stop();
  rmSync(root, { recursive: true, force: true });
});

/** Every file of the corpus as [repository, path, text], read directly from disk. */
function corpusFiles(): Array<[string, string, string]> {
  const out: Array<[string, string, string]> = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else {
        const rel = path.relative(root, full).split(path.sep);
        out.push([rel.slice(0, 3).join('/'), rel.slice(3).join('/'), readFileSync(full, 'utf8')]);
      }
    }
  };
  walk(root);
  return out;
}

function independentCount(pattern: RegExp, keep: (repo: string, file: string) => boolean = () => true): number {
  let total = 0;
  for (const [repo, file, text] of corpusFiles()) {
    if (keep(repo, file)) total += [...text.matchAll(pattern)].filter((m) => m[0].length > 0).length;
  }
  return total;
}

describe('exhaustive counts through dsbench equal an independent count', () => {
  const cases: Array<[string, string, () => number]> = [
    ['literal, case-insensitive', 'count:all foo', () => independentCount(/foo/gi)],
    ['regular expression', 'count:all /fo+\\d/', () => independentCount(/fo+\d/gi)],
    ['case-sensitive literal', 'count:all case:yes Foo', () => independentCount(/Foo/g)],
    ['repo: filter', 'count:all repo:^github\\.com/acme/alpha$ foo', () => independentCount(/foo/gi, (repo) => repo === 'github.com/acme/alpha')],
    ['file: filter', 'count:all file:\\.ts$ foo', () => independentCount(/foo/gi, (_repo, file) => file.endsWith('.ts'))],
    ['lang: filter', 'count:all lang:python foo', () => independentCount(/foo/gi, (_repo, file) => file.endsWith('.py'))],
    ['-repo: filter', 'count:all -repo:beta foo', () => independentCount(/foo/gi, (repo) => !repo.includes('beta'))],
  ];

  it.each(cases)('%s: %s', async (_name, query, expected) => {
    for (const chunkMatches of [false, true]) {
      const result = await runSearch(transport, { query, ...(chunkMatches && { chunkMatches }) });
      expect(result.verdict).toBe('complete');
      expect(result.counted).toBe(expected());
      expect(result.matchCount).toBe(expected());
    }
  });
});
