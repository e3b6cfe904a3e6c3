import { readJsonBody, RequestError, sendJson } from './http-io.js';
import type { Route, RouteHandler } from './routes.js';

/**
 * `POST /.api/graphql`: the one query dsbench asks, `site { productVersion }`, answered with the version this
 * emulator was started with; any other query gets a GraphQL error (HTTP 200, an `errors` array), as the
 * platform answers a query it cannot resolve.
 */
export function graphqlRoutes(productVersion: string): Route[] {
  const handler: RouteHandler = async (req, res, ctx) => {
    let query: unknown;
    try {
      query = ((await readJsonBody(req)) as { query?: unknown }).query;
    } catch (error) {
      if (!(error instanceof RequestError)) throw error;
      return sendJson(res, error.status, { errors: [{ message: error.message }] }, ctx);
    }
    if (typeof query !== 'string' || !/\bsite\s*\{\s*productVersion\s*\}/.test(query)) {
      return sendJson(res, 200, { errors: [{ message: 'the emulator answers only query { site { productVersion } }' }], data: null }, ctx);
    }
    sendJson(res, 200, { data: { site: { productVersion } } }, ctx);
  };
  // The fault rates spare it: they are the conversation API's, and a draw here would shift their sequence.
  return [{ method: 'POST', path: '/.api/graphql', operation: 'graphql.query', handler, spared: true }];
}
