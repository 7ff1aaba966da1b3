import { startInMemoryApp } from '../../support/in-memory-app';

describe('/metrics behind METRICS_TOKEN', () => {
  it('answers only the scrape that sends the token (anyone who reached the API port read them); without the setting, any scrape', async () => {
    const token = 'scrape-token-0123456789';
    const guarded = await startInMemoryApp({ METRICS_TOKEN: token });
    const open = await startInMemoryApp();
    try {
      expect((await guarded.http.get('/metrics')).status).toBe(403);
      const wrong = await guarded.http.get('/metrics').set('Authorization', `Bearer ${token}x`);
      expect(wrong.status).toBe(403);
      expect(wrong.body.error.code).toBe('forbidden');
      const scraped = await guarded.http.get('/metrics').set('Authorization', `Bearer ${token}`);
      expect(scraped.status).toBe(200);
      expect(scraped.text).toContain('backdrop_http_request_duration_seconds');
      expect((await open.http.get('/metrics')).status).toBe(200);
    } finally {
      await guarded.close();
      await open.close();
    }
  });
});
