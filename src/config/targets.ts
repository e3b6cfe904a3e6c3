import { UsageError } from '../errors/errors.js';
import { connectionFor, connectionFromEnv, normalizeEndpoint, type Connection, type Env } from './credentials.js';

export interface NamedConnection {
  name: string;
  connection: Connection;
}

const NAME = /^[a-z0-9][a-z0-9_-]*$/i;

/** `DSBENCH_TOKEN_<NAME>`: the name upper-cased, `-` as `_`. */
export function tokenVariable(name: string): string {
  return `DSBENCH_TOKEN_${name.toUpperCase().replace(/-/g, '_')}`;
}

/**
 * Targets from `--target NAME=URL` (several), or else `--endpoint`/`SRC_ENDPOINT` as one target named
 * `default`; undefined when none is given (the embedded emulator is used). Tokens come only from the
 * environment (`DSBENCH_TOKEN_<NAME>`, else `SRC_ACCESS_TOKEN`), never from a flag that lands in shell history.
 */
export function targetsFrom(targetFlags: readonly string[], endpointFlag: string | undefined, env: Env): NamedConnection[] | undefined {
  if (targetFlags.length === 0) {
    const connection = connectionFromEnv(env, endpointFlag);
    return connection ? [{ name: 'default', connection }] : undefined;
  }
  if (endpointFlag !== undefined) throw new UsageError('give either --endpoint or --target NAME=URL, not both');
  const seen = new Set<string>();
  return targetFlags.map((flag) => {
    const eq = flag.indexOf('=');
    const name = eq > 0 ? flag.slice(0, eq) : '';
    if (!NAME.test(name)) throw new UsageError(`--target "${flag}": write NAME=URL, NAME of letters, digits, - and _ (e.g. --target staging=https://sg-staging.example.com)`);
    if (seen.has(name)) throw new UsageError(`--target ${name} is given twice`);
    seen.add(name);
    const variable = tokenVariable(name);
    const token = env[variable] ?? env.SRC_ACCESS_TOKEN;
    return { name, connection: connectionFor(normalizeEndpoint(flag.slice(eq + 1), `--target ${name}`), token, env, env[variable] ? variable : `${variable} or SRC_ACCESS_TOKEN`) };
  });
}
