/**
 * The standalone worker server (a real process, dist/src/worker/main.js) with its durable queue on a
 * Redis reached through a TCP proxy that the test cuts: the process stays up, its endpoints answer
 * 503 at once while the queue is away (the API's gateway treats that as a worker it may try again
 * or elsewhere), and answer as before once Redis is back. It starts on a WORKER_WORK_DIR that a
 * worker server killed with -9 left files in.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import * as path from 'node:path';
import { ensureBuilt, freshEnv, randomPort, RunningProcess, startProcess } from '../support/processes';
import { startTcpProxy, TcpProxy } from '../support/tcp-proxy';
import { eventually } from '../support/test-app';

const WORKER_KEY = 'outage-worker-key-0123456789abcdef';

async function call(url: string, path: string, method = 'GET'): Promise<{ status: number; ms: number; body: unknown } | 'no answer'> {
  const started = Date.now();
  try {
    const res = await fetch(`${url}${path}`, { method, headers: { authorization: WORKER_KEY, 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined, signal: AbortSignal.timeout(15_000) });
    return { status: res.status, ms: Date.now() - started, body: await res.json() };
  } catch {
    return 'no answer';
  }
}

/** a pid no process has here */
function deadPid(): number {
  for (let pid = 4_000_000; ; pid += 1) {
    try {
      process.kill(pid, 0);
    } catch {
      return pid;
    }
  }
}

describe('worker server process', () => {
  let proxy: TcpProxy;
  let server: RunningProcess;
  let url: string;
  const workDir = mkdtempSync(path.join(tmpdir(), 'backdrop-worker-workdir-'));
  const host = hostname().replace(/[^A-Za-z0-9.-]/g, '_');
  const killedHere = `backdrop-process-${host}-${deadPid()}`;
  const otherMachines = `backdrop-process-another-host-${deadPid()}`;

  beforeAll(async () => {
    ensureBuilt();
    for (const left of [killedHere, otherMachines]) {
      mkdirSync(path.join(workDir, left, 'backdrop-worker-x'), { recursive: true });
      writeFileSync(path.join(workDir, left, 'backdrop-worker-x', 'input'), 'a whole input');
    }
    proxy = await startTcpProxy({ host: '127.0.0.1', port: 6379 });
    const port = randomPort();
    url = `http://127.0.0.1:${port}`;
    server = startProcess(
      ['dist/src/worker/main.js'],
      freshEnv({
        WORKER_API_KEY: WORKER_KEY,
        WORKER_HOST: '127.0.0.1',
        WORKER_PORT: String(port),
        WORKER_REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        WORKER_QUEUE_NAMESPACE: `outage_${Math.random().toString(36).slice(2, 10)}`,
        WORKER_WORK_DIR: workDir,
      }),
    );
    await server.waitFor(/listening on .*durable on Redis/, 60_000);
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it("removes from its WORKER_WORK_DIR what this machine's worker servers killed with -9 left there (a whole input, for good), not what other machines' left", async () => {
    expect(existsSync(path.join(workDir, killedHere))).toBe(false);
    expect(existsSync(path.join(workDir, otherMachines, 'backdrop-worker-x', 'input'))).toBe(true);
    expect(readdirSync(workDir).sort()).toEqual([otherMachines, `backdrop-process-${host}-${server.child.pid}`].sort());
  });

  it('with its Redis away: stays up and answers 503 with Retry-After at once while Redis is away (it hung until Redis came back), then answers as before', async () => {
    expect(await call(url, '/health')).toMatchObject({ status: 200 });
    await proxy.cut();
    try {
      for (const [path, method] of [['/health', 'GET'], ['/status/run_missing', 'GET'], ['/cancel/run_missing', 'POST']] as const) {
        const answer = await call(url, path, method);
        expect(answer).toMatchObject({ status: 503, body: { error: expect.stringMatching(/queue/) } });
        expect(answer !== 'no answer' && answer.ms).toBeLessThan(8_000);
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000)); // reconnect attempts against a closed port
      expect(server.child.exitCode).toBeNull();
    } finally {
      await proxy.restore();
    }
    await eventually(async () => {
      const answer = await call(url, '/health');
      return answer !== 'no answer' && answer.status === 200 ? true : undefined;
    }, 30_000);
    expect(await call(url, '/status/run_missing')).toMatchObject({ status: 404 });
    expect(server.child.exitCode).toBeNull();
  }, 90_000);
});
