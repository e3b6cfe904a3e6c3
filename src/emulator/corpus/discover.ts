import { existsSync, readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface RepositoryDir {
  name: string;
  dir: string;
}

/** dsbench's package root: the nearest folder above this module whose package.json is named dsbench. */
export function findPackageRoot(from = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (packageName(path.join(dir, 'package.json')) === 'dsbench') return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json named dsbench above ${from}`);
  }
}

/**
 * The node_modules folder where npm put dsbench's dependencies: of the folders Node looks in from the package
 * root (`<root>/node_modules`, then each parent's), the one holding most of the dependencies package.json
 * names, the nearest on a tie. In a clone and a global install that is `<root>/node_modules`; installed as a
 * project's dependency, npm hoists them into the project's `node_modules`, beside dsbench itself.
 */
export function dependencyFolder(root = findPackageRoot()): string {
  const names = Object.keys(readPackage(path.join(root, 'package.json'))?.dependencies ?? {});
  let best = { dir: path.join(root, 'node_modules'), held: 0 };
  for (let dir = root; ; dir = path.dirname(dir)) {
    const folder = path.join(dir, 'node_modules');
    const held = names.filter((name) => existsSync(path.join(folder, name, 'package.json'))).length;
    if (held > best.held) best = { dir: folder, held };
    if (path.dirname(dir) === dir) return best.dir;
  }
}

interface PackageJson {
  name?: unknown;
  dependencies?: Record<string, string>;
}

function readPackage(file: string): PackageJson | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as PackageJson) : undefined;
  } catch {
    return undefined;
  }
}

function packageName(file: string): string | undefined {
  const name = readPackage(file)?.name;
  return typeof name === 'string' ? name : undefined;
}

/** Repositories of a corpus folder: every directory three levels down, `DIR/<host>/<owner>/<name>`. */
export async function discoverTree(root: string): Promise<RepositoryDir[]> {
  const repos: RepositoryDir[] = [];
  for (const host of await subdirs(root)) {
    for (const owner of await subdirs(path.join(root, host))) {
      for (const name of await subdirs(path.join(root, host, owner))) {
        repos.push({ name: `${host}/${owner}/${name}`, dir: path.join(root, host, owner, name) });
      }
    }
  }
  return repos;
}

/** Repositories of a node_modules folder: `pkg` is `github.com/npm/pkg`, `@scope/pkg` is `github.com/scope/pkg`. */
export async function discoverNodeModules(root: string): Promise<RepositoryDir[]> {
  const repos: RepositoryDir[] = [];
  for (const entry of await subdirs(root)) {
    if (entry.startsWith('@')) {
      for (const name of await subdirs(path.join(root, entry))) {
        repos.push({ name: `github.com/${entry.slice(1)}/${name}`, dir: path.join(root, entry, name) });
      }
    } else {
      repos.push({ name: `github.com/npm/${entry}`, dir: path.join(root, entry) });
    }
  }
  return repos;
}

/** Sorted names of the sub-directories (links to directories included), hidden ones left out. */
async function subdirs(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory() || (entry.isSymbolicLink() && (await isDirectory(path.join(dir, entry.name))))) {
      names.push(entry.name);
    }
  }
  return names.sort();
}

async function isDirectory(p: string): Promise<boolean> {
  return stat(p).then((s) => s.isDirectory(), () => false);
}
