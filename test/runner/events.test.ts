// The run's typed events: what an observer sees, in order, against the emulator; several at once; and one
// that throws is detached while the run and the other observers go on.
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { RunEventSchema, type RunEvent, type RunObserver } from '../../src/runner/events.js';
import { FAST, cleanup, emulator, runSuite, suite, target } from './fixtures/harness.js';

afterEach(cleanup);

const SUITE = `
name: events
defaults: { concurrency: 1, poll: { strategy: fixed, interval: 1s } }
questions:
  - id: q1
    question: Where is retryPolicy implemented?
    followups: [ "And where is it tested?" ]
`;

/** A question and its follow-up, asked one after the other. */
const IN_ORDER = ['run-started', 'item-started', 'turn-sent 0', 'turn-polled 0', 'turn-ended 0', 'turn-sent 1', 'turn-polled 1', 'turn-ended 1', 'item-ended', 'run-ended'];

class Watching implements RunObserver {
  readonly events: RunEvent[] = [];
  constructor(readonly name: string) {}
  onEvent(event: RunEvent): void {
    this.events.push(event);
  }
}

/** The types in order, a turn's repeated polls as one. */
function sequence(events: readonly RunEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    const name = 'turn' in e ? `${e.type} ${e.turn}` : e.type;
    if (out.at(-1) !== name || e.type !== 'turn-polled') out.push(name);
  }
  return out;
}

describe('run events', () => {
  it('an observer sees the run, its item and each turn in order, every event of the declared shape', async () => {
    const e = await emulator({ ...FAST });
    const watching = new Watching('test');
    const run = await runSuite(await suite(SUITE), [target({ name: 'main', emulator: e })], { observers: [watching] });
    run.close();
    expect(run.result.exitCode).toBe(ExitCode.ok);
    expect(sequence(watching.events)).toEqual(IN_ORDER);
    for (const event of watching.events) expect(RunEventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
    const times = watching.events.map((ev) => ev.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const [started] = watching.events;
    expect(started).toMatchObject({ type: 'run-started', runId: run.result.runId, total: 1, alreadyDone: 0, targets: ['main'] });
    const sent = watching.events.filter((ev) => ev.type === 'turn-sent');
    expect(new Set(sent.map((ev) => ev.ref)).size).toBe(1);
    const ended = watching.events.filter((ev) => ev.type === 'turn-ended');
    expect(ended.map((ev) => ev.state)).toEqual(['completed', 'completed']);
    expect(ended.every((ev) => ev.polls >= 1 && ev.wallMs !== undefined)).toBe(true);
    expect(watching.events.find((ev) => ev.type === 'item-ended')).toMatchObject({ key: 'main/question/q1/0', summary: { outcome: 'completed' } });
  });

  it('two observers at once see the same events, in the same order', async () => {
    const e = await emulator({ ...FAST });
    const [a, b] = [new Watching('a'), new Watching('b')];
    const run = await runSuite(await suite(SUITE), [target({ name: 'main', emulator: e })], { observers: [a, b] });
    run.close();
    expect(a.events.length).toBeGreaterThan(8);
    expect(b.events).toEqual(a.events);
  });

  it('an observer that throws is detached: it sees no later event, the others are told, the run ends as it would have', async () => {
    const e = await emulator({ ...FAST });
    const thrower = new (class extends Watching {
      override onEvent(event: RunEvent): void {
        super.onEvent(event);
        if (event.type === 'turn-polled') throw new Error('display broke');
      }
    })('broken display');
    const other = new Watching('other');
    const run = await runSuite(await suite(SUITE), [target({ name: 'main', emulator: e })], { observers: [thrower, other] });
    run.close();
    expect(run.result.exitCode).toBe(ExitCode.ok);
    expect(run.result.targets.main?.counts.completed).toBe(1);
    expect(thrower.events.at(-1)?.type).toBe('turn-polled');
    expect(thrower.events.filter((ev) => ev.type === 'turn-polled')).toHaveLength(1);
    expect(run.reporter.logs).toContain('run observer broken display failed on a turn-polled event and sees no more of this run: display broke');
    // The other observer still sees the whole run, the turn-polled the thrower failed on included.
    expect(sequence(other.events.filter((ev) => ev.type !== 'log'))).toEqual(IN_ORDER);
  });
});
