// A run, its targets and what a resume reads back of it: the vocabulary the runner records and the store keeps.
import type { ApiFlavour } from './api-flavour.js';
import type { ItemOutcome, ItemKind, ItemStatus, TurnRecord, TurnState } from './item.js';

export type RunStatus = 'running' | 'completed' | 'aborted' | 'failed';

export interface RunInfo {
  label: string | undefined;
  suiteName: string;
  suitePath: string;
  /** sha256 of the suite file's bytes. */
  suiteHash: string;
  dsbenchVersion: string;
  /** Options the run was started with (concurrency, repeats, on-quota, ...), secrets excluded. */
  options: Record<string, unknown>;
  startedAt: string;
  /** Set on a shard of a run split across machines (`--shard`). */
  group?: RunGroupInfo | undefined;
  /** The run `run --rerun-failed` took this one's items from. */
  rerunOf?: number | undefined;
  /** The run `dsbench confirm` re-asks this one's questions for. */
  confirmOf?: number | undefined;
}

/** Shards of one run share a group; `dsbench merge` puts them back together into one run. */
export interface RunGroupInfo {
  /** From the suite's hash, the targets and the group label (see runGroupId). */
  id: string;
  /** `--group`: tells one nightly's shards from another's. */
  label: string;
  /** 1-based. */
  shardIndex: number;
  shardCount: number;
}

export interface TargetInfo {
  name: string;
  url: string;
  api: ApiFlavour;
  emulated: boolean;
}

/**
 * A recorded turn as a resumed run reads it back. `state`, `questionId` and `sentAt` are what resuming
 * needs; the rest of the record (answer, error, sources, stats, server latency, ...) lets a resumed item
 * judge its expectations and totals on every turn, those finished before the interruption included.
 */
export type ResumeTurn = { turn: number; state: TurnState; questionId?: string | undefined; sentAt?: string | undefined } & Partial<
  Omit<TurnRecord, 'state' | 'questionId' | 'sentAt'>
>;

/** What a resumed run needs to know about an item. */
export interface ResumeItem {
  key: string;
  status: ItemStatus;
  outcome?: ItemOutcome | undefined;
  conversationRef?: string | undefined;
  /** Its conversation was deleted by --cleanup. */
  deleted?: boolean | undefined;
  turns: ResumeTurn[];
}

/** A target's product version as read at a run's start, or why it could not be read. */
export type ProductVersionReading = { version: string } | { unknown: string };

export interface ResumeState {
  runId: number;
  status: RunStatus;
  info: RunInfo;
  targets: TargetInfo[];
  items: ResumeItem[];
}

/** An item a resume runs again because dsbench itself stopped it when its run was interrupted. */
export interface RequeuedItem {
  key: string;
  target: string;
  /** The stopped attempt's conversation: the run still owns it (a lost send is never matched to it). */
  conversationRef: string | null;
}

/** How dsbench records an item it stopped itself when a run is interrupted: its kind, outcome and message. */
export interface StoppedMarker {
  kind: ItemKind;
  outcome: ItemOutcome;
  message: string;
}

/** A run without its items, and how many it has. */
export type RunHeader = Omit<ResumeState, 'items'> & { itemCount: number };

/** A conversation on a target, asking `text`, that no item of the run owns. */
export interface UnownedConversation {
  ref: string;
  text: string;
  createdAt?: string | undefined;
}
