import { SEARCH_ABORTED_MESSAGE } from '../stream/index.js';
import type { StoppedMarker } from '../model/run.js';

/** The message of a question dsbench cancelled on the server because its run was interrupted (after the grace period). */
export const CANCELLED_ON_INTERRUPT = 'cancelled by dsbench: the run was aborted';

/**
 * Items that dsbench itself stopped when a run was interrupted: a question it cancelled, a search it cut.
 * They are not results of the service, so a resume runs them again, keeping the stopped attempt on record.
 */
export const STOPPED_ON_INTERRUPT: readonly StoppedMarker[] = [
  { kind: 'question', outcome: 'canceled', message: CANCELLED_ON_INTERRUPT },
  { kind: 'search', outcome: 'truncated', message: SEARCH_ABORTED_MESSAGE },
];
