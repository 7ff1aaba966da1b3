import { Logger } from '@nestjs/common';
import { InMemoryRateLimitStore } from '../../../src/modules/rate-limit/adapters/in-memory/in-memory.rate-limit-store';
import { RateLimitStore } from '../../../src/modules/rate-limit/ports/rate-limit-store';
import { startInMemoryApp } from '../../support/in-memory-app';
import { swap } from '../../support/test-app';

/** a store that can be taken away (Redis down) and brought back */
class FlakyStore extends InMemoryRateLimitStore {
  away = false;

  override async consume(...args: Parameters<RateLimitStore['consume']>) {
    if (this.away) throw new Error('Connection is closed.');
    return super.consume(...args);
  }
}

describe('rate limits with their store away', () => {
  it('lets requests through and logs one line for the outage, not one a request (30 requests wrote 30 lines), and one when the store is back', async () => {
    const store = new FlakyStore();
    const t = await startInMemoryApp({}, { adapters: [swap(RateLimitStore, store)] });
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    try {
      const key = await t.createKey(10);
      store.away = true;
      const answers = await Promise.all(Array.from({ length: 30 }, () => t.http.get('/v1/jobs?limit=1').set('X-Api-Key', key)));
      expect(answers.map((res) => res.status)).toEqual(Array(30).fill(200));
      const outageLines = warn.mock.calls.filter(([message]) => String(message).startsWith('rate-limit store unavailable'));
      expect(outageLines).toHaveLength(1);
      store.away = false;
      expect((await t.http.get('/v1/jobs?limit=1').set('X-Api-Key', key)).status).toBe(200);
      expect(log.mock.calls.filter(([message]) => message === 'the rate-limit store answers again')).toHaveLength(1);
    } finally {
      warn.mockRestore();
      log.mockRestore();
      await t.close();
    }
  });
});
