import { createServer, globalAgent, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { postJson } from '../../../src/worker/transfers';

/**
 * The worker's transfers reuse kept-alive sockets (Node's global agent). A request on a reused,
 * already-connected socket must not leave a 'connect' listener behind: one that never fires piles up
 * on the socket with every request (Node warns past 10, and it is a leak).
 */
describe('worker transfers over a kept-alive connection', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sequential requests reuse their sockets and leave no connect listener on them', async () => {
    for (let i = 0; i < 12; i++) expect(await postJson(url, { i }, { timeoutMs: 5000 })).toBe(200);
    await new Promise((resolve) => setImmediate(resolve));
    const kept = Object.values(globalAgent.freeSockets).flatMap((sockets) => sockets ?? []);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.map((socket) => socket.listenerCount('connect'))).toEqual(kept.map(() => 0));
  });
});
