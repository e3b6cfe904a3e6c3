import type { AgentSearch } from './agent-search.js';
import type { RequestLogEntry } from './request-log.js';
import type { Route } from './routes.js';

/** Code a caller plugs into the emulator, passed apart from its settings (options.ts), which stay plain data. */
export interface EmulatorHooks {
  /** Replaces the corpus search the agent cites from (tests use a tiny inline one). */
  search?: AgentSearch | undefined;
  /** Routes served beside the built-in APIs (tests add misbehaving endpoints). */
  extraRoutes?: readonly Route[] | undefined;
  /** Called once per request as it ends (the CLI's --log). */
  onRequest?: ((entry: RequestLogEntry) => void) | undefined;
}
