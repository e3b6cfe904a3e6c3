import { afterEach, describe, expect, it } from 'vitest';
import { LeaseLostError, RunHeldError, StorageError } from '../../src/errors/errors.js';
import { Transport } from '../../src/http/transport.js';
import { commitBeforeSend } from '../../src/runner/commit-before-send.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
let transport: Transport | undefined;
afterEach(async () => {
  await transport?.close();
  await server?.close();
  transport = server = undefined;
});

const holder = { pid: 1, host: 'h', acquiredAt: '2026-01-01T00:00:00Z', heartbeatAt: '2026-01-01T00:00:00Z' };

describe('commitBeforeSend', () => {
  it.each([
    ['a failed store (exit 6)', new StorageError('results.db', 'the disk is full', 'Free space'), 1],
    ['any other failure', new Error('commit failed'), 1],
    ['a run another process took over (exit 7)', new LeaseLostError(1, 'pid 2 on h'), 0],
    ['a run another process holds (exit 7)', new RunHeldError(1, holder, 60_000), 0],
  ])('a cleanup request (a cancel) still goes when the commit fails with %s, but not for a run taken over', async (_what, fault, sent) => {
    server = await startServer((_req, res) => res.writeHead(200).end('{}'));
    const rejected = Promise.reject(fault);
    rejected.catch(() => undefined);
    transport = new Transport({ endpoint: server.url, headers: {}, beforeSend: commitBeforeSend({ committed: () => rejected }) });
    const cancel = transport.request({ operation: 'cancel', method: 'POST', path: '/', body: {}, cleanup: true });
    if (sent) await cancel;
    else await expect(cancel).rejects.toBe(fault);
    expect(server.received).toHaveLength(sent);
  });

  it('holds any other request back until the commit, and fails it with the commit', async () => {
    server = await startServer((_req, res) => res.writeHead(200).end('{}'));
    const fault = new StorageError('results.db', 'the disk is full', 'Free space');
    const rejected = Promise.reject(fault);
    rejected.catch(() => undefined);
    transport = new Transport({ endpoint: server.url, headers: {}, beforeSend: commitBeforeSend({ committed: () => rejected }) });
    await expect(transport.request({ operation: 'create', method: 'POST', path: '/', body: {} })).rejects.toBe(fault);
    expect(server.received).toHaveLength(0);
  });
});
