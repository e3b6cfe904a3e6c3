/*
 * The emulated instance's corpus: real files on disk, searched lazily.
 *
 * Repository names
 * - `--corpus DIR`: every folder three levels down, `DIR/<host>/<owner>/<name>`, is the repository
 *   `<host>/<owner>/<name>` (e.g. `DIR/github.com/sourcegraph/src-cli` is `github.com/sourcegraph/src-cli`).
 *   Files and folders at the first two levels are ignored.
 * - Default (no DIR): dsbench's own installed node_modules; each package is a repository,
 *   `pkg` -> `github.com/npm/pkg` and `@scope/pkg` -> `github.com/scope/pkg`.
 * - Hidden entries (".name") are never repositories. Inside a repository `.git`, `.hg`, `.svn` and
 *   nested `node_modules` folders are skipped, symbolic links are not followed, and binary files
 *   (a NUL byte in the first 8 KB) and files over 1 MB are left out.
 * - Archived and fork flags come from option lists of names; by default `github.com/npm/yaml` is
 *   archived and `github.com/npm/p-limit` is a fork (both always installed).
 * - Offsets in results are string indices (UTF-16 code units) of the UTF-8-decoded file; lines are 0-based.
 */
export { createAgentSearch, type AgentCitation } from './agent.js';
export { Corpus, CorpusError, CorpusOptionsSchema, DEFAULT_ARCHIVED, DEFAULT_FORKS, type CorpusOptions, type Repository } from './corpus.js';
export { QuerySyntaxError } from './errors.js';
export { parseQuery, type Query } from './query.js';
export { hitCount, SearchRun, type Hit } from './search.js';
