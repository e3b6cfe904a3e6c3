// What was recorded of a whole run, counted as the verdict, the summary and the progress line read it.
import type { ItemKind } from './item.js';
import type { VerdictOutcome } from './verdict.js';

/** Items of one kind on one target: by outcome (unfinished ones by status), and their checks. */
export interface KindTally {
  counts: Record<string, number>;
  /** Of those counts, the failures the suite expected (see failureClass): shown as such, not as errors. */
  expected: Record<string, number>;
  passed: number;
  failed: number;
}

export interface TargetTally {
  counts: Record<string, number>;
  /** Null when no turn reported credits (the versioned API reports no stats): not measured, not zero. */
  credits: number | null;
  passed: number;
  failed: number;
  questions: KindTally;
  searches: KindTally;
  /** Conversations with the run's question texts that no item owns: sends that landed after they were asked again. */
  unownedConversations: number;
  /** Texts of creates given up, and how many of them no end-of-run check has looked for (and why, if it failed). */
  lostCreates: { texts: number; unchecked: number; error: string | null };
  /**
   * Attempts dsbench itself stopped when the run was interrupted (a question it cancelled, a search it cut)
   * whose items a resume ran again, and their credits: asked again after our own cancel, not asked twice.
   */
  rerunAfterInterruption: { attempts: number; credits: number | null };
}

export function emptyTargetTally(): TargetTally {
  const kind = (): KindTally => ({ counts: {}, expected: {}, passed: 0, failed: 0 });
  return { counts: {}, credits: null, passed: 0, failed: 0, questions: kind(), searches: kind(), unownedConversations: 0, lostCreates: { texts: 0, unchecked: 0, error: null }, rerunAfterInterruption: { attempts: 0, credits: null } };
}

/** Everything the verdict of a whole run needs, read from what was recorded (items finished before a resume included). */
export interface RunTally {
  targets: Record<string, TargetTally>;
  items: Array<{ kind: ItemKind; outcome: VerdictOutcome; httpStatus: number | null; count: number }>;
  checks: { passed: number; failed: number };
}
