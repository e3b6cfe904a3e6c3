import type { z } from 'zod';

/** One problem found in a suite, still without a file position. */
export interface Problem {
  /** Where the problem is: the field, or for a missing field the object that lacks it. */
  path: PropertyKey[];
  /** Point at the key (unknown fields) or at the value (everything else). */
  at: 'key' | 'value';
  message: string;
  /** For a duplicate id: the id and the path of the first item that uses it. */
  duplicate?: { id: string; firstUse: PropertyKey[] };
}

/** `questions[3].expect.maxCredit`, the way a user would write it. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(String(segment))) text += text === '' ? String(segment) : `.${String(segment)}`;
    else text += `[${JSON.stringify(String(segment))}]`;
  }
  return text;
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object (key: value pairs)',
};

/** `a string ("abc")`, `a number (42)`, `a list`: what the user actually wrote. */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 39)}…` : value)})`;
    case 'number':
      if (!Number.isFinite(value)) return String(value);
      return Number.isInteger(value) ? `an integer (${value})` : `a number (${value})`;
    case 'boolean':
      return `a boolean (${value})`;
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The closest candidate to a misspelt name, ignoring case, `-` and `_`; undefined when none is close. */
function closest(name: string, candidates: readonly string[]): string | undefined {
  const normal = (s: string) => s.toLowerCase().replace(/[-_]/g, '');
  const limit = Math.max(2, Math.floor(name.length / 4));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = levenshtein(normal(name), normal(candidate));
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

type RawIssue = z.core.$ZodRawIssue;

function isRootTypeMismatch(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'invalid_type' && issue.path.length === 0;
}

function bound(issue: { inclusive?: boolean }, inclusive: string, exclusive: string): string {
  return issue.inclusive === false ? exclusive : inclusive;
}

/** Messages written for suite authors; undefined leaves zod's own (and schema-level messages always win). */
export const suiteErrorMap: z.core.$ZodErrorMap = (issue: RawIssue) => {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'required' : `expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${describeValue(issue.input)}`;
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string') return min <= 1 ? 'must not be empty' : `must be at least ${min} characters long`;
      if (issue.origin === 'array') return `must have at least ${min} item${min === 1 ? '' : 's'}`;
      return `must be ${bound(issue, 'at least', 'greater than')} ${min}, got ${String(issue.input)}`;
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string' && typeof issue.input === 'string') return `is ${issue.input.length} characters long; the limit is ${max}`;
      if (issue.origin === 'array') return `must have at most ${max} items`;
      return `must be ${bound(issue, 'at most', 'less than')} ${max}, got ${String(issue.input)}`;
    }
    case 'invalid_value': {
      const values = issue.values.map((v) => JSON.stringify(v));
      const guess = typeof issue.input === 'string' ? closest(issue.input, issue.values.map(String)) : undefined;
      return `must be one of ${values.join(', ')}, got ${describeValue(issue.input)}${guess ? ` (did you mean "${guess}"?)` : ''}`;
    }
    case 'invalid_format':
      return issue.format === 'regex' ? `${describeValue(issue.input)} does not match ${String(issue.pattern)}` : undefined;
    case 'invalid_union': {
      // Every branch rejected the type itself: name the types the field takes.
      const branches = issue.errors as z.core.$ZodIssue[][];
      if (!branches.every((b) => b.length === 1 && isRootTypeMismatch(b[0]!))) return undefined;
      const expected = [...new Set(branches.map((b) => EXPECTED[(b[0] as z.core.$ZodIssueInvalidType).expected] ?? 'something else'))];
      return `expected ${expected.join(' or ')}, got ${describeValue(issue.input)}`;
    }
    default:
      return undefined;
  }
};

interface DefLike {
  type: string;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  options?: readonly z.core.$ZodType[];
  shape?: Record<string, z.core.$ZodType>;
  element?: z.core.$ZodType;
}

function defOf(schema: z.core.$ZodType): DefLike {
  return schema._zod.def as unknown as DefLike;
}

/** The schemas a value can meet once wrappers (optional, default, transform...) are looked through. */
function unwrap(schema: z.core.$ZodType): z.core.$ZodType[] {
  const def = defOf(schema);
  if (def.innerType) return unwrap(def.innerType);
  if (def.type === 'pipe' && def.in) return unwrap(def.in);
  if (def.type === 'union' && def.options) return def.options.flatMap(unwrap);
  return [schema];
}

/** Field names the schema allows in the object at `path`, for suggestions. */
function knownKeys(root: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  let current = unwrap(root);
  for (const segment of path) {
    current = current.flatMap((schema) => {
      const def = defOf(schema);
      if (def.type === 'object' && typeof segment === 'string' && def.shape?.[segment]) return unwrap(def.shape[segment]);
      if (def.type === 'array' && typeof segment === 'number' && def.element) return unwrap(def.element);
      return [];
    });
  }
  return [...new Set(current.flatMap((schema) => Object.keys(defOf(schema).shape ?? {})))];
}

export function unknownField(key: string, known: string[]): string {
  const guess = closest(key, known);
  if (guess) return `unknown field "${key}" (did you mean "${guess}"?)`;
  return known.length > 0 ? `unknown field "${key}"; the fields here are ${known.join(', ')}` : `unknown field "${key}"`;
}

/**
 * Turns zod issues into one problem per mistake: one per unknown key, a missing field reported on
 * the object that lacks it, and a failed union reported through the branch that fits the value.
 */
export function problemsFromIssues(
  issues: readonly z.core.$ZodIssue[],
  root: z.core.$ZodType,
  prefix: readonly PropertyKey[] = [],
): Problem[] {
  return issues.flatMap((issue): Problem[] => {
    const path = [...prefix, ...issue.path];
    switch (issue.code) {
      case 'unrecognized_keys': {
        const known = knownKeys(root, path);
        return issue.keys.map((key) => ({ path: [...path, key], at: 'key', message: unknownField(key, known) }));
      }
      case 'invalid_union': {
        const fitting = issue.errors.find((branch) => !branch.every(isRootTypeMismatch));
        return fitting ? problemsFromIssues(fitting, root, path) : [{ path, at: 'value', message: issue.message }];
      }
      case 'invalid_type':
        if (issue.input === undefined && path.length > 0) {
          return [{ path: path.slice(0, -1), at: 'value', message: `missing required field "${String(path[path.length - 1])}"` }];
        }
        return [{ path, at: 'value', message: issue.message }];
      case 'custom': {
        const duplicate = (issue.params as Pick<Problem, 'duplicate'> | undefined)?.duplicate;
        return [{ path, at: 'value', message: issue.message, ...(duplicate ? { duplicate } : {}) }];
      }
      default:
        return [{ path, at: 'value', message: issue.message }];
    }
  });
}
