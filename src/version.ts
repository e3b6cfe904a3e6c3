import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The nearest package.json above this module: the package's own, whether this file runs from src/, from
 * dist/ (the bundled CLI, where this code sits in dist/cli/main.js or a chunk) or from a test's build.
 */
function nearestPackageJson(): { dir: string; text: string } {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    try {
      return { dir, text: readFileSync(path.join(dir, 'package.json'), 'utf8') };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || path.dirname(dir) === dir) throw error;
    }
  }
}

// Read once from package.json so the version in headers and the database never drifts from the package.
const found = nearestPackageJson();
const pkg = JSON.parse(found.text) as { version: string };

/** The package's folder: where suites/ and its JSON Schema are. */
export const PACKAGE_DIR: string = found.dir;

export const VERSION: string = pkg.version;
export const CLIENT_NAME = 'dsbench';
