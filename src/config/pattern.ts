/** `/source/flags`: the slashed form of an expectation regex. */
const SLASHED = /^\/(.+)\/([A-Za-z]*)$/s;

/** Flags that keep `test()` free of state; `g` and `y` would make a reused RegExp remember lastIndex. */
const ALLOWED_FLAGS = /^[dimsuv]*$/;

/**
 * Compiles an expectation regex written as plain JavaScript source (`retr(y|ies)`) or in the slashed
 * form (`/retry/i`). Throws a SyntaxError whose message says what is wrong, without V8's prefix.
 */
export function compilePattern(text: string): RegExp {
  const slashed = SLASHED.exec(text);
  const source = slashed ? (slashed[1] ?? '') : text;
  const flags = slashed ? (slashed[2] ?? '') : '';
  if (!ALLOWED_FLAGS.test(flags)) {
    throw new SyntaxError(
      `unsupported flags "${flags}" (allowed: d, i, m, s, u, v); ` +
        'text written /…/ is read as /source/flags, so escape a leading slash as \\/ to match it literally',
    );
  }
  try {
    return new RegExp(source, flags);
  } catch (error) {
    throw new SyntaxError((error as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, ''));
  }
}
