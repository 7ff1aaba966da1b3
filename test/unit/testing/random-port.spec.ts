import { createServer, Server } from 'node:net';
import { listeningPorts, randomPort } from '../../support/processes';

/** a server listening on `port`, on loopback */
function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe("the test servers' random ports", () => {
  it('sees a port that a server listens on', async () => {
    const server = await listenOn(0);
    const { port } = server.address() as { port: number };
    try {
      expect(listeningPorts().has(port)).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('draws again past a port that something listens on, and stays below the ephemeral range', () => {
    const draws = [0.5, 0.5, 0.25];
    const taken = new Set([10000 + 11000]);
    expect(randomPort(() => draws.shift()!, taken)).toBe(10000 + 5500);
    expect(draws).toEqual([]);
    expect(randomPort(() => 0.999999, new Set())).toBeLessThan(32768);
  });
});
