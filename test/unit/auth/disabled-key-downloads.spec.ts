import { fingerprintOf, hashApiKey } from '../../../src/common/api-key-format';
import { InMemoryOutboundHttp } from '../../../src/common/in-memory.outbound-http';
import { OutboundHttp } from '../../../src/common/outbound-http';
import { InMemoryVideoProbe } from '../../../src/modules/uploads/adapters/in-memory/in-memory.video-probe';
import { VideoProbe } from '../../../src/modules/uploads/ports/video-probe';
import { startInMemoryApp } from '../../support/in-memory-app';
import { eventually, swap } from '../../support/test-app';

describe('a disabled key with ALLOW_KEYLESS_DOWNLOAD', () => {
  it("hands out its outputs to no one: its own key was refused, while the keyless legacy download signed fresh URLs for good", async () => {
    const clip = Buffer.from('a clip');
    const internet = new InMemoryOutboundHttp().serve('https://videos.example.com/clip.mp4', clip);
    const probe = new InMemoryVideoProbe().knowVideo(clip, { durationSeconds: 4, width: 640, height: 360 });
    const t = await startInMemoryApp({ ALLOW_KEYLESS_DOWNLOAD: 'true' }, { adapters: [swap(OutboundHttp, internet), swap(VideoProbe, probe)] });
    try {
      const key = await t.createKey(100);
      const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: 'https://videos.example.com/clip.mp4', model: 'light' });
      await eventually(async () => ((await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', key)).body.status === 'completed' ? true : undefined));
      expect((await t.http.get(`/api/download/${created.body.id}`)).status).toBe(200);
      await t.adapters.keys.setEnabled(fingerprintOf(hashApiKey(key)), false);
      expect((await t.http.get(`/api/download/${created.body.id}`).set('X-Api-Key', key)).status).toBe(401);
      const keyless = await t.http.get(`/api/download/${created.body.id}`);
      expect([keyless.status, keyless.body.error?.code]).toEqual([404, 'not_found']);
    } finally {
      await t.close();
    }
  });
});
