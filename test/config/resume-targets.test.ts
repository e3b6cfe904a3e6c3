import { describe, expect, it } from 'vitest';
import { boundTargets } from '../../src/config/resume-targets.js';
import { UsageError } from '../../src/errors/errors.js';

const STORED = [
  { name: 'prod', url: 'https://sg.example.com', emulated: false },
  { name: 'staging', url: 'https://sg-staging.example.com', emulated: false },
];

describe('the targets of a resumed run', () => {
  it('are the stored ones, with tokens from the environment, whatever SRC_ENDPOINT says', () => {
    const env = { SRC_ENDPOINT: 'https://other.example.com', SRC_ACCESS_TOKEN: 'sgp_shared', DSBENCH_TOKEN_STAGING: 'sgp_staging' };
    const bound = boundTargets(4, STORED, [], undefined, env);
    expect(bound.targets.map((t) => [t.name, t.connection.endpoint, t.connection.token])).toEqual([
      ['prod', 'https://sg.example.com', 'sgp_shared'],
      ['staging', 'https://sg-staging.example.com', 'sgp_staging'],
    ]);
    expect(bound.notes).toEqual(['SRC_ENDPOINT (https://other.example.com) is ignored: run 4 is bound to prod=https://sg.example.com, staging=https://sg-staging.example.com']);
  });

  it('accept flags that repeat a stored target, and say nothing of an SRC_ENDPOINT that is one', () => {
    const bound = boundTargets(4, STORED, ['prod=https://sg.example.com/'], undefined, { SRC_ENDPOINT: 'https://sg.example.com' });
    expect(bound.targets).toHaveLength(2);
    expect(bound.notes).toEqual([]);
    expect(boundTargets(4, STORED.slice(0, 1), [], 'https://sg.example.com', {}).targets[0]?.name).toBe('prod');
  });

  it('refuse another URL for a stored target, an unknown target name and an --endpoint elsewhere', () => {
    const refused = (flags: string[], endpoint?: string) => {
      try {
        boundTargets(4, STORED, flags, endpoint, {});
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        return (error as Error).message;
      }
      throw new Error('not refused');
    };
    expect(refused(['prod=https://other.example.com'])).toBe(
      'run 4 started on prod=https://sg.example.com, staging=https://sg-staging.example.com; --target prod=https://other.example.com names another instance: ' +
        'its conversations and unasked questions belong where it started. Resume without it (the stored targets are used) or start a new run',
    );
    expect(refused(['dev=https://sg.example.com'])).toContain('--target dev=https://sg.example.com names a target it does not have');
    expect(refused([], 'https://sg.example.com')).toContain('--endpoint https://sg.example.com names another instance');
  });

  it('refuse a run of the embedded emulator', () => {
    expect(() => boundTargets(4, [{ name: 'emulator', url: 'http://127.0.0.1:1', emulated: true }], [], undefined, {})).toThrow(/embedded emulator/);
  });
});
