import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The client's port: equal ports mean one kept-alive connection. */
  remotePort: number | undefined;
}

export interface TestServer {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** A real HTTP server on port 0 whose handler may misbehave on purpose; it records what it received. */
export async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse, body: string, n: number) => unknown,
): Promise<TestServer> {
  const received: Received[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, remotePort: req.socket.remotePort });
    await handler(req, res, body, received.length);
  });
  return { ...(await listenLoopback(server)), received };
}

/** Listens on a free loopback port; `close` drops open connections, so a test never waits on keep-alive. */
export async function listenLoopback(server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port that refuses connections: bound, then released. */
export async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
