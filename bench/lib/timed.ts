// A whole process timed from outside: wall seconds, and user + system CPU seconds from GNU time
// (/usr/bin/time; NaN without it). CPU time bends less with the machine's load than wall time does.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface ProcessTimes {
  wallS: number;
  cpuS: number;
  status: number | null;
  stderr: string;
}

const GNU_TIME = existsSync('/usr/bin/time');

/** Runs `command` with stdout to `out` (default /dev/null), stdin from `input`; rejects nothing: check `status`. */
export function timed(command: string, args: string[], options: { input?: string; out?: string; env?: NodeJS.ProcessEnv } = {}): ProcessTimes {
  // GNU time writes its line last on stderr, after the command's own.
  const script = `${GNU_TIME ? '/usr/bin/time -f "%U %S" ' : ''}"$@" > '${options.out ?? '/dev/null'}'`;
  const start = performance.now();
  const result = spawnSync('/bin/sh', ['-c', script, 'sh', command, ...args], { input: options.input, encoding: 'utf8', env: options.env, maxBuffer: 16 << 20 });
  const wallS = (performance.now() - start) / 1000;
  const lines = result.stderr.trimEnd().split('\n');
  const [user, system] = GNU_TIME ? lines.pop()!.split(' ').map(Number) : [Number.NaN, Number.NaN];
  // GNU time says "Command exited with non-zero status N" before its line.
  const status = /^Command exited with non-zero status (\d+)$/.exec(lines.at(-1) ?? '');
  if (status) lines.pop();
  return { wallS, cpuS: user! + system!, status: result.error ? null : status ? Number(status[1]) : result.status, stderr: lines.join('\n') };
}
