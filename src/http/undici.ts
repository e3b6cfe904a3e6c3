// The parts of undici dsbench uses: an Agent, the request API and the error classes. undici's index loads
// every other dispatcher, the mocks, caches, fetch and WebSocket too (about 0.06 s of CPU on each start of
// `ask`, `search` or `run`). undici 7 has no package `exports`, so its files are importable; the version is
// pinned exactly, and test/cli/startup.test.ts and test/http/ fail if an upgrade moves them.
import Agent from 'undici/lib/dispatcher/agent.js';
import apiRequest from 'undici/lib/api/api-request.js';
import errors from 'undici/lib/core/errors.js';
import type { Dispatcher } from 'undici';

export { Agent, errors };

/** undici's `request`, with the dispatcher always given and the URL already split (no parsing per request). */
export function request(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return apiRequest.call(dispatcher, options);
}
