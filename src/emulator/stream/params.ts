import { PATTERN_TYPES, type PatternType } from '../corpus/query.js';

export interface StreamParams {
  query: string;
  patternType: PatternType;
  chunkMatches: boolean;
  contextLines: number;
  /** Negative: no limit. */
  maxLineLength: number;
  /** Negative: no limit. */
  display: number;
}

/** A bad request parameter; the message goes into an `error` event. */
export class ParamError extends Error {}

/** V1 and V2 are accepted and searched like V3: the emulator implements one query language. */
const VERSIONS = ['V1', 'V2', 'V3'];
const TRUE = ['1', 't', 'T', 'TRUE', 'true', 'True'];
const FALSE = ['0', 'f', 'F', 'FALSE', 'false', 'False'];

/** Reads the stream's query parameters; empty values mean the default. Throws ParamError. */
export function parseParams(params: URLSearchParams): StreamParams {
  const get = (name: string) => params.get(name) || undefined;
  const query = params.get('q') ?? '';
  if (query.trim() === '') throw new ParamError('no query found');
  const version = get('v') ?? 'V3';
  if (!VERSIONS.includes(version)) {
    throw new ParamError(`unrecognized version: want "V1", "V2", or "V3", got ${JSON.stringify(version)}`);
  }
  const t = get('t') ?? 'standard';
  const patternType = PATTERN_TYPES.find((p) => p === t);
  if (!patternType) throw new ParamError(`unrecognized patternType ${JSON.stringify(t)} (t must be one of ${PATTERN_TYPES.join(', ')})`);
  return {
    query,
    patternType,
    chunkMatches: bool('cm', get('cm')),
    contextLines: integer('cl', get('cl'), 1, true),
    maxLineLength: integer('max-line-len', get('max-line-len'), -1, false),
    display: integer('display', get('display'), -1, false),
  };
}

function bool(name: string, value: string | undefined): boolean {
  if (value === undefined || FALSE.includes(value)) return false;
  if (TRUE.includes(value)) return true;
  throw new ParamError(`invalid ${name} ${JSON.stringify(value)}: expected true or false`);
}

function integer(name: string, value: string | undefined, fallback: number, unsigned: boolean): number {
  if (value === undefined) return fallback;
  if (!(unsigned ? /^\d+$/ : /^-?\d+$/).test(value) || !Number.isSafeInteger(Number(value))) {
    throw new ParamError(`invalid ${name} ${JSON.stringify(value)}: expected ${unsigned ? 'an unsigned' : 'an'} integer`);
  }
  return Number(value);
}
