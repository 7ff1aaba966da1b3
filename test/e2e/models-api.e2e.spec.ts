import * as path from 'node:path';
import { COCO_CLASSES } from '../../src/engine/models/pro/vocabulary';
import { MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';

/** GET /v1/models and `pro`'s text_prompt at create and start (real HTTP and database). */
describe('models API and pro prompts', () => {
  let t: TestApp;
  let key: string;
  let videoUrl: string;

  beforeAll(async () => {
    t = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:6379' });
    key = await t.createKey();
    const upload = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', path.join(MEDIA_DIR, 'car-slide.mp4'));
    expect(upload.status).toBe(200);
    videoUrl = upload.body.video_url;
  });
  afterAll(() => t.close());

  const draft = (body: object) => t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl, auto_start: false, ...body });

  it('GET /v1/models needs an API key', async () => {
    const res = await t.http.get('/v1/models');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('missing_api_key');
  });

  it("lists every model with its price, and pro's vocabulary", async () => {
    const res = await t.http.get('/v1/models').set('X-Api-Key', key);
    expect(res.status).toBe(200);
    const models = res.body.models as { name: string; credits_per_minute: number; description: string; vocabulary?: { subject: string; synonyms: string[] }[] }[];
    expect(Object.fromEntries(models.map((m) => [m.name, m.credits_per_minute]))).toEqual(t.config.creditsPerMinute);
    const pro = models.find((m) => m.name === 'pro')!;
    expect(pro.vocabulary!.map((v) => v.subject)).toEqual([...COCO_CLASSES]);
    expect(pro.vocabulary!.find((v) => v.subject === 'person')!.synonyms).toEqual(expect.arrayContaining(['man', 'woman', 'people', 'kid', 'child']));
    expect(models.filter((m) => m.name !== 'pro').every((m) => m.vocabulary === undefined && m.description.length > 0)).toBe(true);
    // the attribute words a prompt can use beside a subject
    const attributes = (pro as { prompt_attributes?: Record<string, unknown> }).prompt_attributes!;
    expect(attributes.colours).toEqual(expect.arrayContaining(['red', 'blue', 'white', 'black']));
    expect(attributes.garments).toMatchObject({ upper: expect.arrayContaining(['jacket', 'shirt']), lower: expect.arrayContaining(['jeans']) });
    expect(attributes.positions).toMatchObject({ left: expect.arrayContaining(['left']), right: expect.arrayContaining(['right']), middle: expect.arrayContaining(['middle']), front: expect.arrayContaining(['front']) });
    expect(attributes.sizes).toMatchObject({ largest: expect.arrayContaining(['biggest']), smallest: expect.arrayContaining(['smallest']) });
    expect(attributes.counts).toEqual(expect.arrayContaining(['two']));
  });

  it('takes a pro prompt that names no subject the detector knows, as the original service takes any prompt (it was a 400)', async () => {
    const res = await draft({ model: 'pro', text_prompt: 'character, staff, glowing ring, clothing accessories' });
    expect(res.status).toBe(200);
    expect(res.body.job.text_prompt).toBe('character, staff, glowing ring, clothing accessories');
  });

  it('accepts a known subject beside unknown words, and a pro job without text_prompt', async () => {
    expect((await draft({ model: 'pro', text_prompt: 'The red car' })).status).toBe(200);
    expect((await draft({ model: 'pro', text_prompt: 'person wearing red jacket' })).status).toBe(200);
    expect((await draft({ model: 'pro', text_prompt: 'the two people on the right, and a shiny unicorn' })).status).toBe(200);
    expect((await draft({ model: 'pro' })).status).toBe(200);
    expect((await draft({ model: 'original', text_prompt: 'sky' })).status).toBe(200); // only pro reads it
  });

  it('takes such a prompt at start too', async () => {
    const created = await draft({ model: 'pro' });
    const start = await t.http.post(`/v1/jobs/${created.body.id}/start`).set('X-Api-Key', key).send({ text_prompt: 'unicorns' });
    expect(start.status).toBe(200);
    expect(start.body.job.text_prompt).toBe('unicorns');
  });
});
