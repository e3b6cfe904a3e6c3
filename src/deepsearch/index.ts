import type { Connection, ApiFlavour } from '../config/credentials.js';
import { headersFor } from '../config/credentials.js';
import { Transport, type TransportOptions } from '../http/transport.js';
import type { DeepSearchClient } from './client.js';
import { LegacyClient } from './legacy.js';
import { VersionedClient } from './versioned.js';

export type { DeepSearchClient, ListOptions, CallOptions, AddedQuestion } from './client.js';
export { LegacyClient } from './legacy.js';
export { VersionedClient } from './versioned.js';
export { ConversationSet, conversationKey } from './names.js';

export type ClientOptions = Omit<TransportOptions, 'endpoint' | 'headers'>;

/** A client of the chosen flavour with its own transport. */
export function createClient(connection: Connection, api: ApiFlavour, options: ClientOptions = {}): DeepSearchClient {
  const transport = new Transport({ ...options, endpoint: connection.endpoint, headers: headersFor(connection, api) });
  return api === 'legacy' ? new LegacyClient(transport) : new VersionedClient(transport);
}
