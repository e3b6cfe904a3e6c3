import { UsageError } from '../errors/errors.js';
import { connectionFor, normalizeEndpoint, type Env } from './credentials.js';
import { tokenVariable, type NamedConnection } from './targets.js';

export interface StoredTarget {
  name: string;
  url: string;
  emulated: boolean;
}

export interface BoundTargets {
  targets: NamedConnection[];
  /** What was given but not used (an ambient SRC_ENDPOINT), for the log. */
  notes: string[];
}

/**
 * The targets a resumed run must use: the ones it started on, whatever `SRC_ENDPOINT` says now, because
 * its conversations live there and its unasked questions belong there. `--target`/`--endpoint` may repeat
 * a stored target; naming another URL (or an unknown name) is refused. Tokens still come from the
 * environment (`DSBENCH_TOKEN_<NAME>`, else `SRC_ACCESS_TOKEN`).
 */
export function boundTargets(runId: number, stored: readonly StoredTarget[], targetFlags: readonly string[], endpointFlag: string | undefined, env: Env): BoundTargets {
  if (stored.some((t) => t.emulated)) {
    throw new UsageError('this run used the embedded emulator, which ended with its process, so its conversations cannot be re-polled; start a new run');
  }
  const listed = stored.map((t) => `${t.name}=${t.url}`).join(', ');
  const refuse = (given: string, why: string) =>
    new UsageError(`run ${runId} started on ${listed}; ${given} ${why}: its conversations and unasked questions belong where it started. Resume without it (the stored targets are used) or start a new run`);
  for (const flag of targetFlags) {
    const eq = flag.indexOf('=');
    const name = flag.slice(0, Math.max(0, eq));
    const match = stored.find((t) => t.name === name);
    if (!match) throw refuse(`--target ${flag}`, 'names a target it does not have');
    if (normalizeEndpoint(flag.slice(eq + 1), `--target ${name}`) !== match.url) throw refuse(`--target ${flag}`, 'names another instance');
  }
  if (endpointFlag !== undefined && (stored.length !== 1 || normalizeEndpoint(endpointFlag, '--endpoint') !== stored[0]?.url)) {
    throw refuse(`--endpoint ${endpointFlag}`, 'names another instance');
  }
  const notes: string[] = [];
  const ambient = env.SRC_ENDPOINT?.trim();
  if (endpointFlag === undefined && ambient && !stored.some((t) => sameUrl(ambient, t.url))) {
    notes.push(`SRC_ENDPOINT (${ambient}) is ignored: run ${runId} is bound to ${listed}`);
  }
  const targets = stored.map((t) => {
    const variable = tokenVariable(t.name);
    const token = env[variable] ?? env.SRC_ACCESS_TOKEN;
    return { name: t.name, connection: connectionFor(t.url, token, env, env[variable] ? variable : `${variable} or SRC_ACCESS_TOKEN`) };
  });
  return { targets, notes };
}

function sameUrl(raw: string, url: string): boolean {
  try {
    return normalizeEndpoint(raw, 'SRC_ENDPOINT') === url;
  } catch {
    return false;
  }
}
