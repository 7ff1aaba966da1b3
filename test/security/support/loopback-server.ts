import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

export interface LoopbackServer {
  port: number;
  /** Requests received, as "METHOD /path". */
  hits: string[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 with a handler per test; it records every request it sees. */
export async function startLoopbackServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<LoopbackServer> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
