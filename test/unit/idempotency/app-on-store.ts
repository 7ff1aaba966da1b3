import { InMemoryOutboundHttp } from '../../../src/common/in-memory.outbound-http';
import { OutboundHttp } from '../../../src/common/outbound-http';
import { IdempotencyStore } from '../../../src/modules/idempotency/ports/idempotency-store';
import { InMemoryApp, startInMemoryApp } from '../../support/in-memory-app';
import { swap } from '../../support/test-app';

export const VIDEO = 'https://videos.example.com/clip.mp4';

/**
 * The in-memory app on `store` (and `env`), its internet serving VIDEO, with a key of its own: started before
 * the suite's tests and closed after them (read `t` and `key` inside the tests).
 */
export function appOnStore(store: IdempotencyStore, env: Record<string, string> = {}): { t: InMemoryApp; key: string } {
  const app = {} as { t: InMemoryApp; key: string };
  beforeAll(async () => {
    const internet = new InMemoryOutboundHttp().serve(VIDEO, Buffer.from('a video'));
    app.t = await startInMemoryApp(env, { adapters: [swap(IdempotencyStore, store), swap(OutboundHttp, internet)] });
    app.key = await app.t.createKey();
  });
  afterAll(() => app.t.close());
  return app;
}
