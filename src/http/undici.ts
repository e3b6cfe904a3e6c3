// The parts of undici dsbench uses: an Agent, the request API (for streams), the error classes and its
// header-name lookup. undici's index loads every other dispatcher, the mocks, caches, fetch and WebSocket
// too (about 0.06 s of CPU on each start of `ask`, `search` or `run`). undici 7 has no package `exports`,
// so its files are importable; the version is pinned exactly, and test/cli/startup.test.ts and test/http/
// fail if an upgrade moves them.
import Agent from 'undici/lib/dispatcher/agent.js';
import apiRequest from 'undici/lib/api/api-request.js';
import errors from 'undici/lib/core/errors.js';
import util from 'undici/lib/core/util.js';
import type { Dispatcher } from 'undici';

export { Agent, errors };

/** A raw header name in lower case (the common names without converting the bytes), as undici's own parsing does it. */
export const headerNameToString: (name: Buffer) => string = util.headerNameToString;

/** undici's `request`, with the dispatcher always given and the URL already split (no parsing per request). */
export function request(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return apiRequest.call(dispatcher, options);
}
