import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
export const SHARED_MODEL_CACHE = path.join(ROOT, '.cache', 'models');

/** The compiled app (`npm test` builds first; a lone jest run builds here if needed). */
export function ensureBuilt(): void {
  if (!existsSync(path.join(ROOT, 'dist/src/main.js'))) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
}

/** The environment of a fresh machine: none of the test run's service variables. */
export function freshEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['DATABASE_URL', 'TEST_DATABASE_URL', 'REDIS_URL', 'ADMIN_TOKEN', 'PUBLIC_BASE_URL', 'PORT', 'DATA_DIR']) delete env[name];
  return { ...env, ...extra };
}

export interface RunningProcess {
  child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function startProcess(args: string[], env: NodeJS.ProcessEnv): RunningProcess {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    waitFor: (pattern, timeoutMs = 60000) =>
      new Promise((resolve, reject) => {
        const deadline = Date.now() + timeoutMs;
        const poll = (): void => {
          const match = pattern.exec(output);
          if (match) return resolve(match);
          if (child.exitCode !== null) return reject(new Error(`process exited (${child.exitCode}) before ${pattern}:\n${output}`));
          if (Date.now() > deadline) return reject(new Error(`timed out waiting for ${pattern}:\n${output}`));
          setTimeout(poll, 100);
        };
        poll();
      }),
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      // A process that does not stop within its grace period is killed, as an orchestrator would.
      const grace = setTimeout(() => child.exitCode === null && child.kill('SIGKILL'), 15000);
      return exited.finally(() => clearTimeout(grace));
    },
  };
}

/**
 * A port for a server a test starts: below Linux's ephemeral range (32768+), so it never collides
 * with the outgoing connections or port-0 listeners of the same machine, spread wide enough that
 * parallel test files rarely meet, and not one that something already listens on. A cluster keeps
 * its public port across restarts for minutes, and a test app that drew it failed to listen.
 */
export function randomPort(random: () => number = Math.random, listening: Set<number> = listeningPorts()): number {
  for (;;) {
    const port = 10000 + Math.floor(random() * 22000);
    if (!listening.has(port)) return port;
  }
}

/** the TCP ports listened on now, by any process (Linux's /proc/net; empty where it is missing) */
export function listeningPorts(): Set<number> {
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state === LISTEN_STATE && local) ports.add(parseInt(local.slice(local.lastIndexOf(':') + 1), 16));
    }
  }
  return ports;
}

/** a listening socket's state in /proc/net/tcp (TCP_LISTEN, in hex) */
const LISTEN_STATE = '0A';
