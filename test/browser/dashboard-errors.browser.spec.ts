import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Browser, BrowserContext, Page, Request, Route } from 'playwright-core';
import { ensureBuilt, ROOT } from '../support/processes';
import { MEDIA_DIR } from '../support/test-app';
import { launchChromium } from './support/browser';

const WEB = path.join(ROOT, 'dist', 'web');
const BASE = 'http://dashboard.test';
const PORTRAIT = path.join(MEDIA_DIR, 'portrait-pan.mp4');
const CAR = path.join(MEDIA_DIR, 'car-slide.mp4');
const KEY = 'bd_live_0123456789abcdef0123456789abcdef';
const PRICING = { model_pricing_credits_per_minute: { light: 5, human: 10, original: 10, pro: 20 }, price_per_second_cents: 1, packages: [] };
const UPLOADED = { success: true, video_id: 'vid_1', video_url: `${BASE}/v1/uploads/vid_1`, filename: 'a.mp4', size: 1000, content_type: 'video/mp4', duration_seconds: 4 };

type Api = (route: Route, request: Request, url: URL) => Promise<void> | void;

function jobView(overrides: Record<string, unknown> = {}) {
  return {
    id: 'job_abc', job_id: 'job_abc', status: 'processing', progress: 40, output_url: null, output_format: 'webm', error: null, error_code: null,
    created_at: new Date().toISOString(), started_at: null, completed_at: null, duration_seconds: null, billing_status: 'reserved', credits_reserved: 5, credits_charged: null,
    webhook_url: null, webhook_events: {}, video_url: `${BASE}/v1/uploads/vid_1`, model: 'human', background: null, composition: null, preview_duration: null,
    text_prompt: null, metadata: null, notes: [], ...overrides,
  };
}
const json = (route: Route, status: number, body: unknown, headers: Record<string, string> = {}) => route.fulfill({ status, contentType: 'application/json', headers, body: JSON.stringify(body) });
const envelope = (code: string, message: string) => ({ success: false, error: { code, message, request_id: 'req_test' } });

/**
 * The dashboard (the built dist/web) in headless Chromium against an API answered by the test: the
 * errors and races a real server seldom gives on cue (a lost answer, a 429, an expired link).
 */
describe('dashboard under errors', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let api: Api;
  /** the API requests the page made: method, path and query, Idempotency-Key, time */
  let requests: Array<{ call: string; idempotencyKey?: string; at: number }>;

  beforeAll(async () => {
    ensureBuilt();
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => browser?.close());

  beforeEach(async () => {
    requests = [];
    api = (route) => json(route, 200, PRICING);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.route(`${BASE}/**`, async (route, request) => {
      const url = new URL(request.url());
      if (url.pathname === '/') return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: readFileSync(path.join(WEB, 'index.html')) });
      if (url.pathname.startsWith('/assets/')) {
        const file = path.join(WEB, 'assets', path.basename(url.pathname));
        const type = file.endsWith('.css') ? 'text/css' : file.endsWith('.svg') ? 'image/svg+xml' : 'text/javascript';
        return route.fulfill({ status: 200, contentType: type, body: readFileSync(file) });
      }
      requests.push({ call: `${request.method()} ${url.pathname}${url.search}`, idempotencyKey: request.headers()['idempotency-key'], at: Date.now() });
      if (url.pathname === '/api/pricing') return json(route, 200, PRICING);
      return api(route, request, url);
    });
    page = await context.newPage();
    await page.goto(`${BASE}/#/pricing`);
    await page.evaluate(`localStorage.setItem('backdrop.apiKey', '${KEY}')`);
  });
  afterEach(async () => context?.close());

  const creates = () => requests.filter((request) => request.call === 'POST /v1/jobs');
  const jobReads = () => requests.filter((request) => request.call === 'GET /v1/jobs/job_abc');

  /** the New job page's API: the upload made, each create answered by `create` */
  const newJobApi =
    (create: (route: Route) => Promise<void> | void): Api =>
    (route, request, url) => {
      if (url.pathname === '/v1/uploads') return json(route, 200, UPLOADED);
      if (url.pathname === '/v1/jobs' && request.method() === 'POST') return create(route);
      return json(route, 200, jobView({ status: 'pending' }));
    };
  const created = (route: Route) => json(route, 200, { success: true, id: 'job_abc', status: 'pending', job: jobView({ status: 'pending' }) });
  async function startAfterUpload(): Promise<void> {
    await page.goto(`${BASE}/#/new`);
    await page.setInputFiles('[data-testid="file-input"]', PORTRAIT);
    await page.getByText(/^Uploaded/).waitFor();
    await page.click('button:has-text("Start job")');
  }

  it('a Start whose answer was lost, tried again, sends the same Idempotency-Key (each try made a job, and a charge)', async () => {
    // the first made on the server, its answer lost
    api = newJobApi((route) => (creates().length === 1 ? route.abort('connectionreset') : created(route)));
    await startAfterUpload();
    await page.getByRole('alert').filter({ hasText: 'Could not start the job' }).waitFor();
    await page.click('button:has-text("Start job")');
    await page.waitForURL(/#\/jobs\/job_abc$/);
    const [first, second] = creates();
    expect(first.idempotencyKey).toMatch(/^[0-9a-f]{32}$/);
    expect(second.idempotencyKey).toBe(first.idempotencyKey);
  }, 60_000);

  it('while a Start is in flight no other file can be picked, no setting changed, nor Start pressed again (a second file enabled it: two jobs, the first with the second file as its "before")', async () => {
    let answer: () => void = () => undefined;
    api = newJobApi(async (route) => {
      await new Promise<void>((resolve) => (answer = resolve));
      return created(route);
    });
    await startAfterUpload();
    await page.getByText('Starting…').waitFor();
    expect(await page.locator('[data-testid="file-input"]').isDisabled()).toBe(true);
    expect(await page.locator('select[name="model"]').isDisabled()).toBe(true); // a change meant a new key: a lost answer's retry, a second job
    await page.locator('[data-testid="file-input"]').setInputFiles(CAR, { timeout: 1000 }).catch(() => undefined); // refused: the input is disabled
    expect(await page.locator('button:has-text("Start job")').isDisabled()).toBe(true);
    answer();
    await page.waitForURL(/#\/jobs\/job_abc$/);
    expect(creates()).toHaveLength(1);
    expect(requests.filter((request) => request.call === 'POST /v1/uploads')).toHaveLength(1);
  }, 60_000);

  it('a completed job whose output is gone says so, with no player and no dead Download link', async () => {
    api = (route) => json(route, 200, jobView({ status: 'completed', progress: 100, completed_at: new Date().toISOString(), billing_status: 'charged' }));
    await page.goto(`${BASE}/#/jobs/job_abc`);
    await page.getByText('The output is no longer kept').waitFor();
    expect(await page.getByTestId('download').count()).toBe(0);
    expect(await page.getByTestId('result-video').count()).toBe(0);
  }, 30_000);

  it('an output whose link is refused: the player asks for the job again (a fresh link) once, then says it could not load it (it stayed empty, silently)', async () => {
    api = (route, _request, url) => {
      if (url.pathname.startsWith('/files/')) return json(route, 403, envelope('forbidden', 'This download link has expired'));
      return json(route, 200, jobView({ status: 'completed', progress: 100, output_url: `${BASE}/files/outputs/job_abc.webm?expires=${jobReads().length}&signature=x`, completed_at: new Date().toISOString() }));
    };
    await page.goto(`${BASE}/#/jobs/job_abc`);
    await page.getByRole('alert').filter({ hasText: 'The output could not be loaded' }).waitFor();
    expect(jobReads()).toHaveLength(2);
    expect(await page.getByTestId('download').getAttribute('href')).toContain('expires=2');
  }, 30_000);

  it('a job that cannot be read stops saying Loading…', async () => {
    api = (route) => json(route, 404, envelope('not_found', 'Job not found'));
    await page.goto(`${BASE}/#/jobs/job_abc`);
    await page.getByRole('alert').filter({ hasText: 'Job not found' }).waitFor();
    const card = await page.locator('section.card').innerText();
    expect(card).toContain('Could not load this job.');
    expect(card).not.toContain('Loading…');
  }, 30_000);

  it('a 429 while following a job waits out its Retry-After (it asked again every 5 s, spending the key’s limit)', async () => {
    api = (route) => (jobReads().length === 1 ? json(route, 200, jobView()) : json(route, 429, envelope('rate_limited', 'Rate limit exceeded; retry after 8 s'), { 'Retry-After': '8' }));
    await page.goto(`${BASE}/#/jobs/job_abc`);
    await page.getByRole('alert').filter({ hasText: 'Rate limit exceeded' }).waitFor({ timeout: 10_000 });
    for (let waited = 0; waited < 20_000 && jobReads().length < 3; waited += 250) await page.waitForTimeout(250);
    const reads = jobReads();
    expect(reads.length).toBeGreaterThanOrEqual(3);
    expect(reads[2].at - reads[1].at).toBeGreaterThanOrEqual(7_900);
  }, 40_000);

  it('paging past the end: the disabled link goes nowhere (Enter followed it), and the page says it is empty, not that there are no jobs', async () => {
    api = (route, _request, url) => json(route, 200, { items: [], total: 20, limit: 20, offset: Number(url.searchParams.get('offset')) });
    await page.goto(`${BASE}/#/jobs?limit=20&offset=20`);
    await page.getByText('No jobs on this page.').waitFor();
    expect(await page.getByTestId('page-range').textContent()).toBe('20 jobs');
    expect(await page.locator('a:has-text("Older")').getAttribute('href')).toBeNull();
    expect(await page.locator('a:has-text("Back to the first page")').getAttribute('href')).toBe('#/jobs?limit=20&offset=0');
  }, 30_000);

  it('status changes are announced; a canceled job reads as canceled, not failed; the notes are shown', async () => {
    api = (route) =>
      json(route, 200, jobReads().length === 1 ? jobView({ status: 'pending', progress: 0 }) : jobView({ status: 'failed', error: 'Canceled by the client', error_code: 'canceled', billing_status: 'refunded', notes: ['text_prompt: ignored unknown words: unicorn'] }));
    await page.goto(`${BASE}/#/jobs/job_abc`);
    await page.getByRole('status').filter({ hasText: 'Job pending' }).waitFor();
    await page.getByText('The job was canceled; its credits were refunded.').waitFor({ timeout: 10_000 });
    expect(await page.getByRole('status').filter({ hasText: /^Job canceled$/ }).count()).toBe(1);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.getByRole('list', { name: 'Notes' }).innerText()).toContain('ignored unknown words: unicorn');
  }, 30_000);

  it('the API key is the input’s value, never written into the page’s HTML', async () => {
    await page.reload();
    expect(await page.inputValue('input[name="api_key"]')).toBe(KEY);
    expect(await page.evaluate('document.documentElement.outerHTML')).not.toContain(KEY);
  }, 30_000);
});
