import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Corpus, Repository } from './corpus.js';
import { statKey } from './stat-cache.js';
import { readCorpusText } from './text-cache.js';

export type RawEntry = { kind: 'file'; text: string } | { kind: 'dir'; entries: string[] };

const byName = new WeakMap<Corpus, Promise<Map<string, Repository>>>();

/**
 * A repository by name, at a revision when `name@revision` gives one. The corpus has one revision per
 * repository, its `commit`: that commit (or a prefix of at least 7 hex digits) and `HEAD` name it, any
 * other revision is not found.
 */
export async function findRepository(corpus: Corpus, name: string): Promise<Repository | undefined> {
  let map = byName.get(corpus);
  if (!map) {
    map = corpus.repositories().then((repos) => new Map(repos.map((r) => [r.name, r])));
    byName.set(corpus, map);
  }
  const at = name.indexOf('@');
  const repo = (await map).get(at < 0 ? name : name.slice(0, at));
  if (!repo || at < 0) return repo;
  const revision = name.slice(at + 1).toLowerCase();
  return revision === 'head' || (revision.length >= 7 && repo.commit.startsWith(revision)) ? repo : undefined;
}

/**
 * What `/<repo>[@<rev>]/-/raw/<path>` serves: a file's text, or a folder's entries (folders end in `/`);
 * undefined when the repository or path does not exist. Symbolic links and `..` are never followed.
 */
export async function readRaw(corpus: Corpus, repository: string, relPath: string): Promise<RawEntry | undefined> {
  const repo = await findRepository(corpus, repository);
  if (!repo) return undefined;
  const segments = relPath.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '..' || s === '.' || s === '.git')) return undefined;
  const full = path.join(repo.dir, ...segments);
  const info = await lstat(full).catch(() => undefined);
  if (!info || info.isSymbolicLink()) return undefined;
  if (info.isDirectory()) {
    const entries = await readdir(full, { withFileTypes: true }).catch(() => []);
    return {
      kind: 'dir',
      entries: entries
        .filter((e) => e.name !== '.git' && (e.isFile() || e.isDirectory()))
        .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
        .sort(),
    };
  }
  if (!info.isFile()) return undefined;
  const text = await readCorpusText(full, statKey(info));
  return text === undefined ? undefined : { kind: 'file', text };
}
