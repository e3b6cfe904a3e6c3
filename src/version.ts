import { readFileSync } from 'node:fs';

// Read once from package.json so the version in headers and the database never drifts from the package.
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

export const VERSION: string = pkg.version;
export const CLIENT_NAME = 'dsbench';
