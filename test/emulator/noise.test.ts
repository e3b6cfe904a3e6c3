import { afterAll, describe, expect, it } from 'vitest';
import { REALISTIC, ServiceNoise, serviceNoise } from '../../src/emulator/noise.js';
import { createRng } from '../../src/emulator/random.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { ADMIN, START, inlineSearch } from '../helpers/emulator.js';

const texts = Array.from({ length: 3000 }, (_, i) => `Where is handler${i} implemented?`);

describe('the realistic noise profile', () => {
  it('makes a third of the questions flaky, the same ones every night', () => {
    const a = new ServiceNoise(REALISTIC, 'svc', 'night-1');
    const b = new ServiceNoise(REALISTIC, 'svc', 'night-2');
    const flaky = texts.filter((t) => a.flaky(t));
    expect(flaky.length / texts.length).toBeGreaterThan(0.3);
    expect(flaky.length / texts.length).toBeLessThan(0.37);
    expect(texts.filter((t) => b.flaky(t))).toEqual(flaky);
    expect(texts.filter((t) => new ServiceNoise(REALISTIC, 'other service', 'night-1').flaky(t))).not.toEqual(flaky);
  });

  it('draws 4% token-limit, 1% output-limit and 0.5% output-limit-no-answer errors, most latencies 1.5 to 3.5 minutes, and a per-question effect that lasts across nights', () => {
    const night1 = new ServiceNoise(REALISTIC, 'svc', 'n1');
    const night2 = new ServiceNoise(REALISTIC, 'svc', 'n2');
    const rng = createRng(7);
    const draws = texts.map((t) => night1.draw(t, rng));
    const share = (f: (d: (typeof draws)[number]) => boolean) => draws.filter(f).length / draws.length;
    expect(share((d) => d.failure === 'token-limit')).toBeGreaterThan(0.03);
    expect(share((d) => d.failure === 'token-limit')).toBeLessThan(0.05);
    expect(share((d) => d.failure === 'output-limit')).toBeGreaterThan(0.005);
    expect(share((d) => d.failure === 'output-limit')).toBeLessThan(0.016);
    expect(share((d) => d.failure === 'output-limit-no-answer')).toBeGreaterThan(0.002);
    expect(share((d) => d.failure === 'output-limit-no-answer')).toBeLessThan(0.009);
    expect(share((d) => d.processingMs >= 90_000 && d.processingMs <= 210_000)).toBeGreaterThan(0.75);
    // The same question is slow (or fast) on both nights: log latencies correlate.
    const x = texts.map((t) => Math.log(night1.draw(t, createRng(1)).processingMs));
    const y = texts.map((t) => Math.log(night2.draw(t, createRng(2)).processingMs));
    const mean = (v: number[]) => v.reduce((s, z) => s + z, 0) / v.length;
    const mx = mean(x);
    const my = mean(y);
    const cov = mean(x.map((v, i) => (v - mx) * (y[i]! - my)));
    const corr = cov / Math.sqrt(mean(x.map((v) => (v - mx) ** 2)) * mean(y.map((v) => (v - my) ** 2)));
    // Question effect 0.25 against a night-specific 0.15 and 0.08 per asking: about 0.25^2 / (0.25^2 + 0.15^2 + 0.08^2) = 0.68.
    expect(corr).toBeGreaterThan(0.6);
    expect(corr).toBeLessThan(0.76);
  });

  it('rehearses regressions: more errors, slower, flaky questions never grounded', () => {
    const slow = serviceNoise({ profile: 'realistic', serviceSeed: 'svc', regression: { latencyFactor: 1.6, tokenLimitRate: 0.3, flakyGroundedRate: 0 } }, 'n1')!;
    const base = serviceNoise({ profile: 'realistic', serviceSeed: 'svc', regression: {} }, 'n1')!;
    const t = texts.find((x) => base.flaky(x))!;
    expect(slow.draw(t, createRng(3)).processingMs / base.draw(t, createRng(3)).processingMs).toBeCloseTo(1.6, 4);
    expect(texts.slice(0, 200).every((x) => !base.flaky(x) || slow.draw(x, createRng(5)).ungrounded)).toBe(true);
    expect(serviceNoise({ profile: 'none', serviceSeed: 'svc', regression: {} }, 'n1')).toBeUndefined();
  });
});

describe('an emulator with the realistic profile', () => {
  let e: RunningEmulator;
  afterAll(async () => e?.stop());

  it('answers a flaky question without links about half the time, and a stable one always with them', async () => {
    e = await startEmulator({ port: 0, timeScale: 1e-6, startTime: START, seed: 'night', noise: { profile: 'realistic', serviceSeed: 'svc' } }, { search: inlineSearch });
    const noise = new ServiceNoise(REALISTIC, 'svc', 'night');
    const flaky = texts.find((x) => noise.flaky(x))!;
    const stable = texts.find((x) => !noise.flaky(x))!;
    const ask = async (text: string, item: string): Promise<string | undefined> => {
      const call = async (method: string, body: unknown) => {
        const res = await fetch(`${e.url}/api/deepsearch.v1.Service/${method}`, { method: 'POST', headers: { authorization: `token ${ADMIN}`, 'content-type': 'application/json', 'x-dsbench-item': item }, body: JSON.stringify(body) });
        return (await res.json()) as { name: string; state?: Record<string, unknown>; questions: Array<{ answer?: Array<{ markdown: { text: string } }> }> };
      };
      const created = await call('CreateConversation', { parent: 'users/~self', conversation: { questions: [{ input: [{ question: { text } }] }] } });
      for (;;) {
        const c = await call('GetConversation', { name: created.name });
        if (c.state && !('processing' in c.state)) return 'completed' in c.state ? c.questions[0]!.answer?.[0]?.markdown.text : undefined;
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    const flakyAnswers = await Promise.all(Array.from({ length: 16 }, (_, i) => ask(flaky, `f${i}`)));
    const grounded = flakyAnswers.filter((a) => a !== undefined && a.includes('/-/blob/')).length;
    const ungrounded = flakyAnswers.filter((a) => a !== undefined && !a.includes('/-/blob/')).length;
    expect(grounded).toBeGreaterThan(2);
    expect(ungrounded).toBeGreaterThan(2);
    const stableAnswers = await Promise.all(Array.from({ length: 8 }, (_, i) => ask(stable, `s${i}`)));
    expect(stableAnswers.filter((a) => a !== undefined).every((a) => a!.includes('/-/blob/'))).toBe(true);
  });
});
