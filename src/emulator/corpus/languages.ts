import path from 'node:path';

/** Language of a file, from its extension (or whole name for a few well-known files); "" when unknown. */
const BY_EXTENSION: Record<string, string> = {
  '.ts': 'TypeScript', '.tsx': 'TypeScript', '.mts': 'TypeScript', '.cts': 'TypeScript',
  '.js': 'JavaScript', '.jsx': 'JavaScript', '.mjs': 'JavaScript', '.cjs': 'JavaScript',
  '.json': 'JSON', '.md': 'Markdown', '.markdown': 'Markdown',
  '.c': 'C', '.h': 'C',
  '.cc': 'C++', '.cpp': 'C++', '.cxx': 'C++', '.hpp': 'C++', '.hh': 'C++', '.hxx': 'C++',
  '.py': 'Python', '.go': 'Go', '.rs': 'Rust', '.java': 'Java', '.rb': 'Ruby',
  '.sh': 'Shell', '.bash': 'Shell', '.yml': 'YAML', '.yaml': 'YAML', '.toml': 'TOML',
  '.html': 'HTML', '.css': 'CSS', '.txt': 'Text', '.gyp': 'Python', '.gypi': 'Python',
};

const BY_NAME: Record<string, string> = {
  makefile: 'Makefile', dockerfile: 'Dockerfile', license: 'Text', licence: 'Text',
};

export function languageOf(filePath: string): string {
  const base = path.posix.basename(filePath).toLowerCase();
  return BY_EXTENSION[path.posix.extname(base)] ?? BY_NAME[base] ?? '';
}

const ALIASES: Record<string, string> = {
  ts: 'TypeScript', js: 'JavaScript', md: 'Markdown', py: 'Python', cpp: 'C++', 'c++': 'C++',
  cxx: 'C++', golang: 'Go', rs: 'Rust', sh: 'Shell', bash: 'Shell', yml: 'YAML',
};

const KNOWN = new Map(
  [...Object.values(BY_EXTENSION), ...Object.values(BY_NAME)].map((name) => [name.toLowerCase(), name]),
);

/** Canonical language name for a `lang:` value (case-insensitive, with a few aliases), or undefined. */
export function resolveLanguage(value: string): string | undefined {
  const lower = value.toLowerCase();
  return ALIASES[lower] ?? KNOWN.get(lower);
}

/** The extension of a path (".ts"), for extension filter suggestions; undefined without one. */
export function extensionOf(filePath: string): string | undefined {
  const ext = path.posix.extname(filePath);
  return ext.length > 1 ? ext : undefined;
}
