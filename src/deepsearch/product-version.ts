import { z } from 'zod';
import { type Connection, headersFor } from '../config/credentials.js';
import { excerpt } from '../redact.js';
import type { ProductVersionReading } from '../model/run.js';
import { Transport } from '../http/transport.js';

// The instance's product version, read once per target at a run's start from its GraphQL API (wire-notes.md:
// "The product version"). Whatever goes wrong makes the version unknown, never the run's failure.

export const PRODUCT_VERSION_QUERY = 'query { site { productVersion } }';
/** Long enough for a loaded instance, short enough that a hanging one barely delays the run. */
export const PRODUCT_VERSION_TIMEOUT_MS = 5_000;

/** Release versions (`6.9.2`), builds with suffixes (`6.4.0_...`, `0.0.0+dev`): one short token, no spaces or markup. */
const VERSION = /^[0-9A-Za-z][0-9A-Za-z._+~-]{0,99}$/;

const GraphqlReplySchema = z.object({
  data: z.object({ site: z.object({ productVersion: z.string() }).nullable() }).nullable().optional(),
  errors: z.array(z.looseObject({ message: z.string() })).optional(),
});

/** POST /.api/graphql with the run's token, one attempt under `timeoutMs`; unknown (with why) on any failure. */
export async function readProductVersion(connection: Connection, timeoutMs = PRODUCT_VERSION_TIMEOUT_MS, stop?: AbortSignal): Promise<ProductVersionReading> {
  const transport = new Transport({ endpoint: connection.endpoint, headers: headersFor(connection, 'graphql'), timeoutMs, retry: { maxAttempts: 1 }, connections: 1 });
  const signal = stop ? AbortSignal.any([stop, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
  try {
    const { json } = await transport.requestJson({ operation: 'graphql.productVersion', method: 'POST', path: '/.api/graphql', body: { query: PRODUCT_VERSION_QUERY }, signal, timeoutMs });
    return versionOf(json);
  } catch (error) {
    return { unknown: error instanceof Error ? error.message : String(error) };
  } finally {
    // A hanging server must not hold the run: the pool is closed without waiting for it.
    void transport.close().catch(() => undefined);
  }
}

/** The version in a GraphQL reply, or why there is none. */
export function versionOf(json: unknown): ProductVersionReading {
  const parsed = GraphqlReplySchema.safeParse(json);
  if (!parsed.success) return { unknown: `POST /.api/graphql: the reply is not a GraphQL reply (${excerpt(String(JSON.stringify(json)), 120)})` };
  const { data, errors } = parsed.data;
  const version = data?.site?.productVersion;
  if (version === undefined) {
    const why = errors?.map((e) => e.message).join('; ') || 'no data.site.productVersion';
    return { unknown: `POST /.api/graphql: ${excerpt(why, 200)}` };
  }
  if (!VERSION.test(version)) return { unknown: `POST /.api/graphql: productVersion ${excerpt(JSON.stringify(version), 120)} is not a version` };
  return { version };
}
