import { createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { rawRequest } from '@taco/harness';

const ANSWER = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok';

/**
 * A server that answers the first request on each connection and resets the connection when a
 * second one comes on it, as a server closing an idle kept-alive connection does when a request
 * crosses the close.
 */
async function resettingServer(): Promise<{ server: Server; url: string; connections: Socket[] }> {
  const connections: Socket[] = [];
  const server = createServer((socket) => {
    connections.push(socket);
    let answered = false;
    socket.on('data', () => {
      if (answered) {
        socket.resetAndDestroy();
        return;
      }
      answered = true;
      socket.write(ANSWER);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, url: `http://127.0.0.1:${address.port}/`, connections };
}

describe('the reference client over HTTP', () => {
  it('sends a request again on a connection of its own when a kept-alive one is reset under it', async () => {
    const { server, url, connections } = await resettingServer();
    try {
      const first = await rawRequest(url, { keepAlive: true });
      const second = await rawRequest(url, { keepAlive: true });
      expect([first.status, second.body.toString()]).toEqual([200, 'ok']);
      expect(second.status).toBe(200);
      // The first connection was reused and reset; the second request went on a new one.
      expect(connections).toHaveLength(2);
    } finally {
      for (const socket of connections) socket.destroy();
      server.close();
    }
  });

  it('fails a request reset on a fresh connection: only a reused one is sent again', async () => {
    const server = createServer((socket) => socket.on('data', () => socket.resetAndDestroy()));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address() as { port: number };
    try {
      await expect(
        rawRequest(`http://127.0.0.1:${address.port}/`, { keepAlive: true }),
      ).rejects.toMatchObject({ code: 'ECONNRESET' });
    } finally {
      server.close();
    }
  });
});
