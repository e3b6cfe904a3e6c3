// "Did you mean" for a mistyped flag: the known option closest by edit distance (or one it starts).

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** The closest known flag to `typed`, written as a flag (`--concurrency`), or undefined when none is close. */
export function closestFlag(typed: string, known: readonly string[]): string | undefined {
  const word = typed.replace(/^-+/, '').replace(/=.*$/, '');
  const kebab = (k: string) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  const name = closestName(word, [...new Set(known.map(kebab))].filter((n) => n.length >= 2 && n !== '$0' && n !== '_'));
  return name === undefined ? undefined : `--${name}`;
}

/** The known name closest to `typed` by edit distance (or one it starts), or undefined when none is close. */
export function closestName(typed: string, known: Iterable<string>): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const d = name.startsWith(typed) && typed.length >= 3 ? 0.5 : distance(typed, name);
    if (d <= Math.max(1, Math.floor(name.length / 4)) && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

/** yargs's "Unknown argument(s): a, b" with a suggestion for each flag that has a close one. */
export function suggestFlags(message: string, known: readonly string[]): string {
  const m = /^Unknown arguments?: (.+)$/.exec(message);
  if (!m) return message;
  const hints = m[1]!
    .split(', ')
    .map((typed) => [typed, closestFlag(typed, known)] as const)
    .filter(([, near]) => near !== undefined)
    .map(([typed, near]) => `${typed.startsWith('-') ? typed : `--${typed}`}: did you mean ${near}?`);
  return hints.length > 0 ? `${message}\n${hints.join('\n')}` : message;
}
