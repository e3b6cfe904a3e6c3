// `dsbench run --shard auto` reads the shard from a Kubernetes Indexed Job's or GitLab's environment and says
// which; `--resume-or-start` resumes the shard's own run of its group when the database has one (a pod
// restarted with its disk), else starts it.
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shardFromEnv } from '../../src/cli/run-shard.js';
import { dsbenchHere } from '../helpers/cli-here.js';
import { deadPid, setLease } from '../runner/fixtures/harness.js';
import { cleanup, emulator, FAST, op, tempDir, writeSuite } from '../runner/fixtures/harness.js';

afterAll(cleanup);

const SUITE = `name: shards
defaults: { timeout: 30m }
questions:
${Array.from({ length: 6 }, (_, i) => `  - id: q${i}\n    question: Where is handler${i} implemented?`).join('\n')}
`;

describe('--shard auto', () => {
  it('reads a Kubernetes Indexed Job (0-based) with --shard-count or JOB_COMPLETIONS, and GitLab parallel: (1-based)', () => {
    expect(shardFromEnv({ JOB_COMPLETION_INDEX: '0' }, 4)).toEqual({ shard: { index: 1, count: 4 }, from: 'JOB_COMPLETION_INDEX=0 (Kubernetes Indexed Job, 0-based) and --shard-count 4' });
    expect(shardFromEnv({ JOB_COMPLETION_INDEX: '3', JOB_COMPLETIONS: '4' }, undefined).shard).toEqual({ index: 4, count: 4 });
    expect(shardFromEnv({ CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3' }, undefined)).toEqual({ shard: { index: 2, count: 3 }, from: 'CI_NODE_INDEX=2 and CI_NODE_TOTAL=3 (GitLab parallel:, 1-based)' });
    // Both engines' variables, agreeing.
    expect(shardFromEnv({ JOB_COMPLETION_INDEX: '1', CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3' }, 3).shard).toEqual({ index: 2, count: 3 });
  });

  it.each([
    [{}, undefined, 'none of the engines\' variables is set; read JOB_COMPLETION_INDEX (Kubernetes Indexed Job, with --shard-count or JOB_COMPLETIONS) or CI_NODE_INDEX and CI_NODE_TOTAL'],
    [{ JOB_COMPLETION_INDEX: '1' }, undefined, 'JOB_COMPLETION_INDEX gives the index but not the count; pass --shard-count N'],
    [{ JOB_COMPLETION_INDEX: '4' }, 4, 'JOB_COMPLETION_INDEX=4 is outside the 4 shards of --shard-count 4'],
    [{ JOB_COMPLETION_INDEX: 'x' }, 4, 'JOB_COMPLETION_INDEX is "x", not a whole number'],
    [{ JOB_COMPLETION_INDEX: '1', JOB_COMPLETIONS: '3' }, 4, '--shard-count 4 contradicts JOB_COMPLETIONS=3'],
    [{ CI_NODE_INDEX: '2' }, undefined, 'only one of them is set'],
    [{ CI_NODE_INDEX: '0', CI_NODE_TOTAL: '3' }, undefined, 'CI_NODE_INDEX=0 is outside the 3 shards of CI_NODE_TOTAL=3'],
    [{ CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3' }, 4, '--shard-count 4 contradicts CI_NODE_TOTAL=3'],
    [{ JOB_COMPLETION_INDEX: '0', CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3' }, 3, 'say shard 1/3, but CI_NODE_INDEX=2 and CI_NODE_TOTAL=3 (GitLab parallel:, 1-based) say 2/3'],
  ])('refuses %o with --shard-count %s, naming the variables', (env, count, message) => {
    expect(() => shardFromEnv(env, count)).toThrow(message);
  });

  it('is a usage error on the command line before anything is opened, and --shard-count needs it', async () => {
    const db = path.join(tempDir(), 'none.db');
    const none = await dsbenchHere(['run', writeSuite(SUITE), '--shard', 'auto', '--db', db]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--shard auto: none of the engines\' variables is set');
    const count = await dsbenchHere(['run', writeSuite(SUITE), '--shard', '1/2', '--shard-count', '2', '--db', db]);
    expect(count.code).toBe(2);
    expect(count.stderr).toContain('--shard-count goes with --shard auto');
    const group = await dsbenchHere(['run', writeSuite(SUITE), '--shard', '1/2', '--resume-or-start', '--db', db]);
    expect(group.stderr).toContain('--resume-or-start finds the shard\'s own run by its group: give it with --shard and --group');
  });
});

describe('--resume-or-start', () => {
  it('starts the shard\'s run, then a restarted pod resumes that run instead of asking again', async () => {
    const e = await emulator({ ...FAST });
    const db = path.join(tempDir(), 'shard.db');
    const suite = writeSuite(SUITE);
    const env = { CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3', SRC_ACCESS_TOKEN: e.adminToken };
    const args = ['run', suite, '--shard', 'auto', '--group', 'pipeline-7', '--resume-or-start', '--endpoint', e.url, '--db', db, '--reporter', 'quiet'];
    const first = await dsbenchHere(args, env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('dsbench: --shard auto: shard 2/3 from CI_NODE_INDEX=2 and CI_NODE_TOTAL=3 (GitLab parallel:, 1-based)');
    expect(first.stderr).toContain(`dsbench: --resume-or-start: no run of shard 2/3 of group pipeline-7 in ${db}: starting one`);
    const created = () => e.counters()[op('versioned', 'create')];
    expect(created()).toBe(2);
    // The pod was killed mid-run: the run is still marked running, its holder gone.
    setLease(db, 1, { pid: deadPid(), host: os.hostname(), heartbeatAgoMs: 0 });
    const again = await dsbenchHere(args, env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('dsbench: --resume-or-start: resuming run 1 (running), shard 2/3 of group pipeline-7');
    const runs = JSON.parse((await dsbenchHere(['runs', '--db', db, '--json'])).stdout) as Array<{ id: number; status: string; items: number }>;
    expect(runs.map((r) => [r.id, r.status, r.items])).toEqual([[1, 'completed', 2]]);
    // Nothing was asked twice.
    expect(created()).toBe(2);
    // The pod restarted again after its shard completed (a later step failed): its verdict stands, nothing is asked.
    const done = await dsbenchHere(args, env);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain('dsbench: --resume-or-start: run 1, shard 2/3 of group pipeline-7, completed already: nothing to ask');
    expect(done.stdout).toContain('Run 1 (shard 2/3) completed already: passed (exit 0)');
    expect(created()).toBe(2);
    // Another shard of the same group starts its own.
    const other = await dsbenchHere(args, { ...env, CI_NODE_INDEX: '1' });
    expect(other.stderr).toContain('starting one');
  }, 60_000);
});
