import { existsSync } from 'node:fs';
import type { Env } from '../config/credentials.js';
import { UsageError } from '../errors/errors.js';
import { formatShard, MAX_SHARDS, parseShard, type Shard } from '../runner/shard.js';
import { shardRunOf } from '../store/shard-run.js';
import { openStore } from '../store/store.js';

/** What `--shard auto`, `--shard-count` and `--resume-or-start` take from the command line. */
export interface ShardFlags {
  db: string;
  shard?: string | undefined;
  shardCount?: number | undefined;
  group?: string | undefined;
  resume?: string | undefined;
  resumeOrStart?: boolean | undefined;
}

const READ = 'JOB_COMPLETION_INDEX (Kubernetes Indexed Job, with --shard-count or JOB_COMPLETIONS) or CI_NODE_INDEX and CI_NODE_TOTAL (GitLab parallel:)';

/** A whole number from the environment variable or flag `name`, or a usage error naming it and its value. */
function whole(name: string, value: string | number): number {
  const text = String(value).trim();
  if (!/^\d+$/.test(text)) throw new UsageError(`--shard auto: ${name} is "${value}", not a whole number`);
  return Number(text);
}

/** The count of a Kubernetes Indexed Job's shards: --shard-count, JOB_COMPLETIONS, both equal if both given. */
function completions(env: Env, shardCount: number | undefined): { count: number; from: string } {
  const fromEnv = env.JOB_COMPLETIONS !== undefined && env.JOB_COMPLETIONS !== '' ? whole('JOB_COMPLETIONS', env.JOB_COMPLETIONS) : undefined;
  if (shardCount !== undefined && fromEnv !== undefined && shardCount !== fromEnv) {
    throw new UsageError(`--shard auto: --shard-count ${shardCount} contradicts JOB_COMPLETIONS=${fromEnv}; give one, or make them equal`);
  }
  if (shardCount !== undefined) return { count: shardCount, from: `--shard-count ${shardCount}` };
  if (fromEnv !== undefined) return { count: fromEnv, from: `JOB_COMPLETIONS=${fromEnv}` };
  throw new UsageError('--shard auto: JOB_COMPLETION_INDEX gives the index but not the count; pass --shard-count N (the Job\'s completions) or set JOB_COMPLETIONS');
}

/**
 * The shard `--shard auto` reads from the engine's environment, and where from: a Kubernetes Indexed Job's
 * `JOB_COMPLETION_INDEX` (0-based) or GitLab's `CI_NODE_INDEX`/`CI_NODE_TOTAL` (1-based). Both engines' variables
 * must agree; none, half of GitLab's, a count that differs or an index outside the count are usage errors.
 */
export function shardFromEnv(env: Env, shardCount: number | undefined): { shard: Shard; from: string } {
  const k8s = env.JOB_COMPLETION_INDEX !== undefined && env.JOB_COMPLETION_INDEX !== '';
  const gitlab = (env.CI_NODE_INDEX ?? '') !== '' || (env.CI_NODE_TOTAL ?? '') !== '';
  const found: Array<{ shard: Shard; from: string }> = [];
  if (k8s) {
    const index = whole('JOB_COMPLETION_INDEX', env.JOB_COMPLETION_INDEX as string);
    const { count, from } = completions(env, shardCount);
    found.push({ shard: checked(index + 1, count, `JOB_COMPLETION_INDEX=${index}`, from), from: `JOB_COMPLETION_INDEX=${index} (Kubernetes Indexed Job, 0-based) and ${from}` });
  }
  if (gitlab) {
    if ((env.CI_NODE_INDEX ?? '') === '' || (env.CI_NODE_TOTAL ?? '') === '') {
      throw new UsageError('--shard auto: GitLab sets CI_NODE_INDEX and CI_NODE_TOTAL together (a job with parallel:); only one of them is set');
    }
    const index = whole('CI_NODE_INDEX', env.CI_NODE_INDEX as string);
    const total = whole('CI_NODE_TOTAL', env.CI_NODE_TOTAL as string);
    if (shardCount !== undefined && shardCount !== total) throw new UsageError(`--shard auto: --shard-count ${shardCount} contradicts CI_NODE_TOTAL=${total}`);
    found.push({ shard: checked(index, total, `CI_NODE_INDEX=${index}`, `CI_NODE_TOTAL=${total}`), from: `CI_NODE_INDEX=${index} and CI_NODE_TOTAL=${total} (GitLab parallel:, 1-based)` });
  }
  if (found.length === 0) throw new UsageError(`--shard auto: none of the engines' variables is set; read ${READ}. Outside such an engine give --shard INDEX/COUNT`);
  if (found.length === 2 && formatShard(found[0]!.shard) !== formatShard(found[1]!.shard)) {
    throw new UsageError(`--shard auto: ${found[0]!.from} say shard ${formatShard(found[0]!.shard)}, but ${found[1]!.from} say ${formatShard(found[1]!.shard)}; unset one engine's variables`);
  }
  return found[0]!;
}

function checked(index: number, count: number, indexFrom: string, countFrom: string): Shard {
  if (count < 1 || count > MAX_SHARDS) throw new UsageError(`--shard auto: ${countFrom} must be between 1 and ${MAX_SHARDS}`);
  if (index < 1 || index > count) throw new UsageError(`--shard auto: ${indexFrom} is outside the ${count} shards of ${countFrom}`);
  return { index, count };
}

/** Usage errors of the shard flags that need no environment (yargs' check). */
export function checkShardFlags(flags: Omit<ShardFlags, 'db'>): void {
  if (flags.shardCount !== undefined && flags.shard !== 'auto') throw new UsageError('--shard-count goes with --shard auto (the count of a Kubernetes Indexed Job); with --shard INDEX/COUNT the count is in it');
  if (flags.shard !== undefined && flags.shard !== 'auto') parseShard(flags.shard);
  if (flags.resumeOrStart) {
    if (flags.shard === undefined || flags.group === undefined) throw new UsageError('--resume-or-start finds the shard\'s own run by its group: give it with --shard and --group');
    if (flags.resume !== undefined) throw new UsageError('give --resume RUN or --resume-or-start, not both');
  }
}

/**
 * `--shard auto` as the shard it reads (said on stderr), and `--resume-or-start` as `--resume RUN` when the
 * database holds an unfinished run of this shard of the group: its flags are then those of a resume, without
 * --group; `completedRun` when that run completed already. Other flags pass as they are.
 */
export function resolveShardFlags<T extends ShardFlags>(flags: T, env: Env, say: (text: string) => void): T & { completedRun?: number } {
  let resolved = flags;
  if (flags.shard === 'auto') {
    const { shard, from } = shardFromEnv(env, flags.shardCount);
    say(`--shard auto: shard ${formatShard(shard)} from ${from}`);
    resolved = { ...resolved, shard: formatShard(shard), shardCount: undefined };
  }
  if (!resolved.resumeOrStart) return resolved;
  const shard = parseShard(resolved.shard as string);
  const found = existsSync(resolved.db) ? withStore(resolved.db, (db) => shardRunOf(db, resolved.group as string, shard.index, shard.count)) : undefined;
  if (!found) {
    say(`--resume-or-start: no run of shard ${formatShard(shard)} of group ${resolved.group} in ${resolved.db}: starting one`);
    return resolved;
  }
  if (found.status === 'completed') {
    // A pod restarted after its shard ended (a later step failed): the shard's work is done, its verdict stands.
    say(`--resume-or-start: run ${found.id}, shard ${formatShard(shard)} of group ${resolved.group}, completed already: nothing to ask; its verdict is the exit code`);
    return { ...resolved, completedRun: found.id };
  }
  say(`--resume-or-start: resuming run ${found.id} (${found.status}), shard ${formatShard(shard)} of group ${resolved.group}`);
  return { ...resolved, resume: String(found.id), group: undefined };
}

function withStore<R>(file: string, read: (db: ReturnType<typeof openStore>['db']) => R): R {
  const store = openStore(file);
  try {
    return read(store.db);
  } finally {
    store.close();
  }
}
