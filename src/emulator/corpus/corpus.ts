import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { dependencyFolder, discoverNodeModules, discoverTree } from './discover.js';
import { fileSymbols } from './symbol-cache.js';
import { readCorpusText } from './text-cache.js';
import type { SymbolDefinition } from './symbols.js';
import { walkFiles, type CorpusFile } from './walk.js';

/** Packages that always exist in dsbench's node_modules, so the default corpus has an archived repo and a fork. */
export const DEFAULT_ARCHIVED = ['github.com/npm/yaml'];
export const DEFAULT_FORKS = ['github.com/npm/p-limit'];

export const CorpusOptionsSchema = z.object({
  /** Folder of repositories laid out `<host>/<owner>/<name>`; absent: the node_modules folder holding dsbench's dependencies. */
  dir: z.string().min(1).optional(),
  /** Repository names flagged archived / fork (exact names). */
  archived: z.array(z.string()).default(DEFAULT_ARCHIVED),
  forks: z.array(z.string()).default(DEFAULT_FORKS),
});
export type CorpusOptions = z.input<typeof CorpusOptionsSchema>;

export interface Repository {
  id: number;
  name: string;
  dir: string;
  archived: boolean;
  fork: boolean;
  stars: number;
  /** ISO 8601 modification time of the repository folder. */
  lastFetched: string;
  /** A stable fake 40-hex commit derived from the name. */
  commit: string;
}

export class CorpusError extends Error {
  override name = 'CorpusError';
}

/**
 * A read-only set of repositories on disk. Repositories are discovered once; each repository's file
 * list is cached after its first complete walk. What walks, reads and symbol lookups found is also
 * remembered for the whole process, by path and stat, so a changed file is read again (see walk.ts,
 * text-cache.ts, symbol-cache.ts).
 */
export class Corpus {
  readonly root: string;
  readonly layout: 'tree' | 'node_modules';
  private readonly archived: Set<string>;
  private readonly forks: Set<string>;
  private repos?: Promise<Repository[]>;
  private readonly fileLists = new Map<string, CorpusFile[]>();

  private constructor(options: z.output<typeof CorpusOptionsSchema>) {
    this.layout = options.dir === undefined ? 'node_modules' : 'tree';
    this.root = path.resolve(options.dir ?? dependencyFolder());
    this.archived = new Set(options.archived);
    this.forks = new Set(options.forks);
  }

  /** Opens a corpus, failing at once when its folder is missing. */
  static async open(options: CorpusOptions = {}): Promise<Corpus> {
    const corpus = new Corpus(CorpusOptionsSchema.parse(options));
    const isDir = await stat(corpus.root).then((s) => s.isDirectory(), () => false);
    if (!isDir) throw new CorpusError(`corpus folder not found: ${corpus.root} (the folder holding dsbench's dependencies); reinstall dsbench, or start \`dsbench emulator --corpus DIR\` with a folder of repositories`);
    return corpus;
  }

  /** All repositories, sorted by name. */
  repositories(): Promise<Repository[]> {
    this.repos ??= this.discover();
    return this.repos;
  }

  /** Searchable files of a repository, walked lazily the first time. */
  async *files(repo: Repository): AsyncGenerator<CorpusFile> {
    const cached = this.fileLists.get(repo.name);
    if (cached) {
      yield* cached;
      return;
    }
    const list: CorpusFile[] = [];
    for await (const file of walkFiles(repo.dir)) {
      list.push(file);
      yield file;
    }
    this.fileLists.set(repo.name, list);
  }

  /** A file's text, or undefined when it vanished since the walk. */
  async readText(repo: Repository, file: CorpusFile): Promise<string | undefined> {
    return readCorpusText(path.join(repo.dir, file.path));
  }

  /** A file's symbols (none when it vanished since the walk), read from its text unless its stat is unchanged since they were. */
  async symbols(repo: Repository, file: CorpusFile): Promise<readonly SymbolDefinition[]> {
    return fileSymbols(path.join(repo.dir, file.path), file.path);
  }

  private async discover(): Promise<Repository[]> {
    const dirs = this.layout === 'tree' ? await discoverTree(this.root) : await discoverNodeModules(this.root);
    dirs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return Promise.all(
      dirs.map(async ({ name, dir }) => {
        const hash = createHash('sha1').update(name).digest();
        const mtime = await stat(dir).then((s) => s.mtime, () => new Date(0));
        return {
          id: (hash.readUInt32BE(0) & 0x7fffffff) || 1,
          name,
          dir,
          archived: this.archived.has(name),
          fork: this.forks.has(name),
          stars: hash.readUInt16BE(4) % 5000,
          lastFetched: mtime.toISOString(),
          commit: hash.toString('hex'),
        };
      }),
    );
  }
}
