import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';

/** A TCP proxy on a loopback port to `target`, which a test can cut (a dependency's outage) and restore. */
export interface TcpProxy {
  port: number;
  /** stops listening (new connections are refused) and drops every connection through it */
  cut(): Promise<void>;
  /** listens again on the same port */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  };
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    track(client);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number) => new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  const stop = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of open) socket.destroy();
    await closed;
  };
  return { port, cut: stop, restore: () => listen(port), close: () => (server.listening ? stop() : Promise.resolve()) };
}
