import { once } from 'node:events';
import { createServer, Server } from 'node:net';
import { listenFailure } from '../../../src/listen-failure';

/** the error Node gives a server listening on `host`:`port` */
async function listenError(host: string, port: number): Promise<unknown> {
  const server = createServer();
  server.listen(port, host);
  const [error] = await Promise.race([once(server, 'error'), once(server, 'listening').then(() => [undefined])]);
  server.close();
  return error;
}

describe('a server that cannot listen says which variable to change (Node said "listen EADDRINUSE" or "getaddrinfo ENOTFOUND")', () => {
  it('a port taken: PORT', async () => {
    const taken: Server = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const port = (taken.address() as { port: number }).port;
    try {
      expect(listenFailure(await listenError('127.0.0.1', port), '127.0.0.1', port)).toBe(`port ${port} on 127.0.0.1 is taken by another process: stop it, or set PORT to a free port`);
    } finally {
      taken.close();
    }
  });

  it("the worker server's own variables", async () => {
    expect(listenFailure(await listenError('no-such-host.invalid', 0), 'no-such-host.invalid', 3000, { host: 'WORKER_HOST', port: 'WORKER_PORT' })).toMatch(/^WORKER_HOST no-such-host.invalid is not/);
  });

  it('a host that is no address here: HOST', async () => {
    expect(listenFailure(await listenError('no-such-host.invalid', 0), 'no-such-host.invalid', 3000)).toMatch(/^HOST no-such-host.invalid is not an address of this machine/);
    expect(listenFailure(await listenError('192.0.2.1', 0), '192.0.2.1', 3000)).toMatch(/^HOST 192.0.2.1 is not an address of this machine/);
  });
});
