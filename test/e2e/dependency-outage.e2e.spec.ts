import { ChildProcess, spawn } from 'node:child_process';
import { SERVER_URL } from '../support/test-database';
import { startTcpProxy, TcpProxy } from '../support/tcp-proxy';
import { eventually, startTestApp, TestApp } from '../support/test-app';

/**
 * A frozen process runs no timer, its tests' timeouts included: a process of its own ends this one
 * after `seconds`, so that the freeze fails the suite instead of holding it until CI's time is up.
 */
function watchdog(seconds: number): ChildProcess {
  const child = spawn(process.execPath, ['-e', `setTimeout(() => { try { process.kill(${process.pid}, 'SIGKILL'); } catch {} }, ${seconds * 1000});`], { stdio: 'ignore' });
  child.unref();
  return child;
}

/**
 * The contract answers 503 `unavailable` while a dependency is down (a client retries it) and 500
 * for a bug only. The app reaches its Postgres through a proxy the test cuts: every connection is
 * dropped and new ones are refused, as when the database restarts or its host is gone. It is cut
 * as soon as the app has started: a queue connection still starting then froze the whole process.
 */
describe('Postgres unreachable: 503 unavailable, then answers again', () => {
  let proxy: TcpProxy;
  let t: TestApp;
  let key: string;
  let frozen: ChildProcess;

  beforeAll(async () => {
    frozen = watchdog(180);
    const server = new URL(SERVER_URL);
    proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) });
    t = await startTestApp({ OUTBOUND_ALLOW_LIST: 'example.com' }, {
      databaseUrlOf: (url) => {
        const throughProxy = new URL(url);
        throughProxy.port = String(proxy.port);
        return throughProxy.toString();
      },
    });
    key = await t.createKey();
  });
  afterAll(async () => {
    if (t) await t.close();
    await proxy.close();
    frozen.kill();
  });

  function expectUnavailable(res: { status: number; headers: Record<string, string>; body: { success: boolean; error: { code: string; message: string } } }): void {
    expect(res.status).toBe(503);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('unavailable');
    expect(res.body.error.message).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|postgres/i);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  }

  it('reads, writes and key lookups are 503 unavailable with Retry-After, not 500, and answer once it is back', async () => {
    await proxy.cut();
    try {
      expectUnavailable(await t.http.get('/v1/jobs').set('X-Api-Key', key));
      expectUnavailable(await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: 'https://example.com/clip.mp4', auto_start: false }));
      // a key this process has not seen must be looked up
      expectUnavailable(await t.http.get('/v1/usage/summary').set('X-Api-Key', `bd_live_${'a'.repeat(32)}`));
    } finally {
      await proxy.restore();
    }
    await eventually(async () => ((await t.http.get('/v1/jobs').set('X-Api-Key', key)).status === 200 ? true : undefined));
    const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: 'https://example.com/clip.mp4', auto_start: false });
    expect(created.status).toBe(200);
  });
});
