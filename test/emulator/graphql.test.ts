// The emulator's GraphQL endpoint: the product version it was started with, to a valid token only; the fault
// rates (the conversation API's) never touch it.
import { afterEach, describe, expect, it } from 'vitest';
import { PRODUCT_VERSION_QUERY } from '../../src/deepsearch/product-version.js';
import { ADMIN, FAST, closeAll, emulator } from '../helpers/emulator.js';

afterEach(closeAll);

const ask = (url: string, body: unknown, token = ADMIN) =>
  fetch(`${url}/.api/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token && { authorization: `token ${token}` }) }, body: JSON.stringify(body) });

describe('POST /.api/graphql', () => {
  it('answers site { productVersion } with the version it was started with, to a valid token', async () => {
    const e = await emulator({ ...FAST, productVersion: '6.9.2', faults: { rate500: 1 } });
    const reply = await ask(e.url, { query: PRODUCT_VERSION_QUERY });
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({ data: { site: { productVersion: '6.9.2' } } });
    expect((await ask(e.url, { query: PRODUCT_VERSION_QUERY }, 'sgp_not_a_token')).status).toBe(401);
    expect((await ask(e.url, { query: PRODUCT_VERSION_QUERY }, '')).status).toBe(401);
  });

  it('answers another query with a GraphQL error', async () => {
    const e = await emulator(FAST);
    const reply = await ask(e.url, { query: 'query { currentUser { username } }' });
    expect(reply.status).toBe(200);
    expect(await reply.json()).toMatchObject({ data: null, errors: [{ message: expect.stringContaining('productVersion') }] });
  });
});
