// The quota decisions of one target under each policy, on the server's clock (which may be skewed from
// ours, or virtual on a time-scaled emulator).
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { TargetGate } from '../../src/runner/target-gate.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const exceeded = (retryTime?: string) => ({ code: 'QUOTA_EXCEEDED' as const, rawCode: 'QUOTA_EXCEEDED', message: 'quota exceeded', ...(retryTime && { retryTime }) });
const resetAt = (ms: number) => ({ totalQuota: 10, quotaLimit: 10, resetTime: new Date(ms).toISOString() });

describe('TargetGate', () => {
  it('stop: stops launching, with the code and the target named', () => {
    const gate = new TargetGate('prod', 'stop', 60_000, 1, () => NOW);
    expect(gate.onQuotaError(exceeded(), undefined)).toBe('QUOTA_EXCEEDED on target prod: stopped launching (--on-quota stop)');
    expect(gate.stopped?.exitCode).toBe(ExitCode.aborted);
  });

  it('continue: decides nothing', () => {
    const gate = new TargetGate('prod', 'continue', 60_000, 1, () => NOW);
    expect(gate.onQuotaError(exceeded(), resetAt(NOW + 1000))).toBeUndefined();
    expect(gate.stopped).toBeUndefined();
  });

  it("wait: measures the wait on the server's clock, so a skewed local clock does not stretch it", async () => {
    const serverNow = Date.now() - 3_600_000;
    const gate = new TargetGate('prod', 'wait', 1000);
    expect(gate.onQuotaError(exceeded(), resetAt(serverNow + 200), serverNow)).toMatch(/^QUOTA_EXCEEDED on target prod: waiting until .+ \(server time\)/);
    const started = performance.now();
    expect(await gate.admit(new AbortController().signal)).toBeUndefined();
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
  });

  it('wait: a reset already past lets launches go on at once', async () => {
    const gate = new TargetGate('prod', 'wait', 1000);
    const serverNow = Date.now();
    gate.onQuotaError(exceeded(), resetAt(serverNow - 5000), serverNow);
    const started = performance.now();
    expect(await gate.admit(new AbortController().signal)).toBeUndefined();
    // At once, not a wait of the second's tick or of the 5 s since the reset; a loaded machine may take a while.
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('wait: on a time-scaled emulator, 100 s of its time at scale 0.001 is 0.1 s of ours', () => {
    const gate = new TargetGate('emu', 'wait', 200, 0.001, () => NOW);
    expect(gate.onQuotaError(exceeded(), resetAt(NOW + 100_000), NOW)).toMatch(/\(server time, 0\.1 s of real time at time scale 0\.001\)/);
    expect(gate.stopped).toBeUndefined();
    // The same reset unscaled is far beyond the 200 ms allowed.
    const real = new TargetGate('prod', 'wait', 200, 1, () => NOW);
    expect(real.onQuotaError(exceeded(), resetAt(NOW + 100_000), NOW)).toMatch(/later than --max-quota-wait allows; stopped launching \(raise --max-quota-wait/);
  });

  it("wait: the question's retry time wins over the quota's reset; no time at all stops, saying why", () => {
    const gate = new TargetGate('prod', 'wait', 60_000, 1, () => NOW);
    expect(gate.onQuotaError(exceeded(new Date(NOW + 5000).toISOString()), resetAt(NOW + 3_600_000), NOW)).toContain('waiting until 2026-01-01T00:00:05.000Z');
    const none = new TargetGate('prod', 'wait', 60_000, 1, () => NOW);
    expect(none.onQuotaError(exceeded(), undefined, NOW)).toBe('QUOTA_EXCEEDED on target prod: no reset or retry time was given, so there is nothing to wait for; stopped launching');
  });

  it('wait: a later error with an earlier reset does not shorten the wait', () => {
    const gate = new TargetGate('prod', 'wait', 60_000, 1, () => NOW);
    expect(gate.onQuotaError(exceeded(), resetAt(NOW + 10_000), NOW)).toBeDefined();
    expect(gate.onQuotaError(exceeded(), resetAt(NOW + 5_000), NOW)).toBeUndefined();
  });

  it('an auth failure stops the target as unreachable, and the first reason stays', () => {
    const gate = new TargetGate('prod', 'wait', 60_000);
    gate.fail('HTTP 401');
    gate.fail('HTTP 403');
    expect(gate.stopped).toEqual({ reason: 'HTTP 401', exitCode: ExitCode.unreachable });
  });
});
