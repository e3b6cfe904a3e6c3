import type { Connection } from '../config/credentials.js';
import type { ResolvedQuestion } from '../config/resolve-suite.js';
import type { DeepSearchClient } from '../deepsearch/client.js';
import type { ExitCode } from '../errors/exit-codes.js';
import type { Transport } from '../http/transport.js';
import type { TraceSelection } from '../model/trace.js';
import type { EmulatorNoted } from './emulator-note.js';
import type { AdaptivePollSchedule } from './poll-schedule.js';
import type { RunEvents } from './run-events.js';
import type { Recorder } from './recorder.js';
import type { SendRecovery } from './send-recovery.js';
import type { ItemSlot, Slots } from './slots.js';
import type { TargetGate } from './target-gate.js';

export interface RunTarget {
  name: string;
  connection: Connection;
  emulated: boolean;
  /** Real time per server time; below 1 only for an emulator that runs faster, so polling keeps pace. */
  timeScale: number;
}

/** What every item of a run shares. */
export interface RunContext {
  runId: number;
  recorder: Recorder;
  /** What the run tells its observers; they see the events' data, never this context. */
  events: RunEvents;
  /** `stop`: launch nothing more. `abort`: cancel what is still running (what is processing is then cancelled on the server). */
  signals: { stop: AbortSignal; abort: AbortSignal };
  /** `--cleanup`: delete each conversation once its result is recorded. */
  cleanup: boolean;
  log: (message: string) => void;
}

/**
 * One target's side of a run, shared by its items. On an emulated target each new conversation names its
 * item (ITEM_KEY_HEADER), so its answers do not depend on arrival order; on a time-scaled one an item's
 * timeout is judged on the server's clock.
 */
export interface TargetRuntime extends RunTarget {
  client: DeepSearchClient;
  stream: Transport;
  schedule: AdaptivePollSchedule;
  gate: TargetGate;
  recovery: SendRecovery;
  /** Whether this run already recorded that the target's replies come from a dsbench emulator. */
  emulatorNoted: EmulatorNoted;
  questions: Slots;
  searches: Slots;
  /** Exit codes of items that ended in an exception (a bug, or a fault of the recorder). */
  failures: ExitCode[];
  /** `--trace`: the items whose requests ask the instance for a trace. */
  trace?: TraceSelection | undefined;
}

/** What an item runs with: its run, its target, and its concurrency slot. */
export interface ItemContext {
  run: RunContext;
  target: TargetRuntime;
  /**
   * Given up while a send not found waits out its window (only a create still in flight on the server then
   * can land late), and while a send waits to be retried after an attempt the server did not act on
   * (nothing of it is on the server); taken again before the next request.
   */
  slot: ItemSlot;
}

export interface QuestionItem {
  key: string;
  target: string;
  question: ResolvedQuestion;
}
