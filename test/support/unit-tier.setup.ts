/**
 * The unit tier runs with Postgres and Redis stopped (README "Tests"). Loaded after the test
 * framework in every unit test file: any TCP connection to a Postgres or Redis port (the usual ones,
 * the embedded one and those of DATABASE_URL, TEST_DATABASE_URL and REDIS_URL) is refused and
 * recorded, and a file that tried one fails in afterAll, even when its code swallowed the error.
 */
import * as net from 'node:net';

const SERVICE_PORTS = new Set<number>([5432, 6379, 54329]);
for (const name of ['DATABASE_URL', 'TEST_DATABASE_URL', 'REDIS_URL']) {
  const raw = process.env[name];
  if (!raw) continue;
  try {
    const url = new URL(raw);
    SERVICE_PORTS.add(Number(url.port || (url.protocol.startsWith('redis') ? 6379 : 5432)));
  } catch {
    // not a URL: nothing to guard
  }
}

const attempts: string[] = [];

/** The attempts recorded so far, forgotten (for the test that plants one). */
export function takeServiceAttempts(): string[] {
  return attempts.splice(0);
}

function portOf(args: unknown[]): number | undefined {
  const [first] = args;
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) return Number(first);
  if (Array.isArray(first)) return portOf(first);
  if (first && typeof first === 'object' && 'port' in first) return Number((first as { port: unknown }).port);
  return undefined;
}

const connect = net.Socket.prototype.connect as (...args: unknown[]) => net.Socket;
net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]): net.Socket {
  const port = portOf(args);
  if (port !== undefined && SERVICE_PORTS.has(port)) {
    attempts.push(`a connection to port ${port}`);
    throw new Error(`the unit tier reaches no Postgres or Redis: a connection to port ${port} was refused (move the test to the integration tier)`);
  }
  return connect.apply(this, args);
} as typeof net.Socket.prototype.connect;

afterAll(() => {
  const tried = takeServiceAttempts();
  if (tried.length > 0) throw new Error(`this unit test tried to reach Postgres or Redis: ${tried.join(', ')}`);
});
