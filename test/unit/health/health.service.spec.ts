import { Logger } from '@nestjs/common';
import { DatabaseProbe } from '../../../src/modules/health/database-probe';
import { HealthService } from '../../../src/modules/health/health.service';
import { QueueProbe } from '../../../src/modules/health/queue-probe';
import { InMemoryObjectStorage } from '../../../src/modules/storage/adapters/in-memory/in-memory.object-storage';
import { startInMemoryApp } from '../../support/in-memory-app';
import { swap } from '../../support/test-app';

class UnreachableDatabase extends DatabaseProbe {
  async check(): Promise<string> {
    throw new Error('connect ECONNREFUSED 10.0.3.7:5432');
  }
}

describe('HealthService', () => {
  it("answers a failing check without its driver's message, which names hosts and addresses (/health is public), and logs it", async () => {
    const queue = { check: async () => 'ok', consumers: async () => 1 } as unknown as QueueProbe;
    const health = new HealthService(new UnreachableDatabase(), new InMemoryObjectStorage(), queue);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const readiness = await health.readiness();
    expect(readiness.database).toBe('unavailable (details in the log)');
    expect(JSON.stringify(readiness)).not.toContain('10.0.3.7');
    expect(warn).toHaveBeenCalledWith('health check database failed: connect ECONNREFUSED 10.0.3.7:5432');
  });
});

describe('GET /health/ready', () => {
  it('from the start of a shutdown the process is not ready, and /health says why (it stayed ready through the workers\' grace); a failing probe writes no error line (Terminus wrote one a probe)', async () => {
    const t = await startInMemoryApp();
    const errors = jest.spyOn(Logger.prototype, 'error');
    try {
      expect((await t.http.get('/health/ready')).status).toBe(200);
      t.app.get(HealthService).onModuleDestroy();
      const res = await t.http.get('/health/ready');
      expect(res.status).toBe(503);
      expect(errors).not.toHaveBeenCalled();
      expect(res.body.error.message).toBe('Not ready: api: shutting down');
      expect((await t.http.get('/health')).body).toMatchObject({ status: 'degraded', checks: { api: 'shutting down' } });
    } finally {
      errors.mockRestore();
      await t.close();
    }
  });

  it('a dependency that fails is answered 503 unavailable, naming the check that failed (it said "Internal server error")', async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const t = await startInMemoryApp({}, { adapters: [swap(DatabaseProbe, new UnreachableDatabase())] });
    try {
      const res = await t.http.get('/health/ready');
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ code: 'unavailable', message: 'Not ready: database: unavailable (details in the log)' });
      expect((await t.http.get('/health/live')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
