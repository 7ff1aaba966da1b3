import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { MEDIA_DIR } from '../support/test-app';
import { launchChromium, screenshot, watchProblems } from './support/browser';
import { PAGE_WIDTH, RESULT_FRAME_ALPHA, RESULT_VIDEO_PLAYS, RESULT_VIDEO_TIMELINE } from './support/in-page';
import { RunningServer, startServerOnTestDatabase } from './support/server';

const PORTRAIT = path.join(MEDIA_DIR, 'portrait-pan.mp4'); // 188 KB, 4 s, 640x360
const WALKERS = path.join(MEDIA_DIR, 'walkers.mp4'); // 1 MB: over the limit below
const MAX_UPLOAD_BYTES = 400 * 1024;

/**
 * The dashboard in headless Chromium (from @sparticuz/chromium) against the compiled server with the real engine: a user pastes
 * a key, uploads, starts a `human` job, watches it complete, compares, downloads; errors read in words.
 */
describe('dashboard in a browser', () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let jobId: string;

  const api = async <T>(route: string, init: RequestInit = {}): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${server.base}${route}`, { ...init, headers: { 'X-Api-Key': server.key, 'Content-Type': 'application/json', ...init.headers } });
    return { status: response.status, body: (await response.json()) as T };
  };

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServerOnTestDatabase({ MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES) }), launchChromium()]);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    problems = watchProblems(page);
  }, 150000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function useKey(target: Page, key: string): Promise<void> {
    await target.goto(`${server.base}/#/new`);
    await target.fill('input[name="api_key"]', key);
    await target.click('button:has-text("Save key")');
    await target.getByText('key saved').waitFor();
  }

  it('a bad key: the upload and the jobs list say why, in the API’s words', async () => {
    const other = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await useKey(other, 'bd_live_00000000000000000000000000000000');
    await other.setInputFiles('[data-testid="file-input"]', PORTRAIT);
    await other.getByText(/Upload failed: Invalid API key \(HTTP 401 invalid_api_key, request req_\w+\)/).waitFor();
    await screenshot(other, 'error-bad-key-upload');
    await other.goto(`${server.base}/#/jobs`);
    await other.getByText(/Could not list jobs: Invalid API key \(HTTP 401/).waitFor();
    await other.close();
  });

  it('a file over MAX_UPLOAD_BYTES is refused with a readable 413', async () => {
    await useKey(page, server.key);
    await page.setInputFiles('[data-testid="file-input"]', WALKERS);
    const message = page.getByRole('alert');
    await message.waitFor();
    expect(await message.textContent()).toMatch(/^Upload failed: .+ \(HTTP 413 file_too_large, request req_\w+\)$/);
    expect(await page.locator('button:has-text("Start job")').isDisabled()).toBe(true);
    await screenshot(page, 'error-file-too-large');
  });

  it('uploads with a progress bar and previews the placement live', async () => {
    await page.setInputFiles('[data-testid="file-input"]', PORTRAIT);
    await page.getByText('Uploaded 188.4 KB').waitFor();
    expect(await page.getByRole('progressbar', { name: 'Upload progress' }).getAttribute('aria-valuenow')).toBe('100');

    // a tall canvas with the video at the bottom: the preview draws it there, at the engine's geometry
    await page.check('input[name="composition"]');
    await page.fill('input[name="canvas_width"]', '1080');
    await page.fill('input[name="canvas_height"]', '1920');
    await page.selectOption('select[name="anchor"]', 'bottom-center');
    await page.getByText('Output 1080×1920; video 1080×608 at (0, 1312).').waitFor();
    const stage = (await page.getByTestId('preview-stage').boundingBox())!;
    const foreground = (await page.getByTestId('preview-foreground').boundingBox())!;
    expect(stage.height / stage.width).toBeCloseTo(1920 / 1080, 1);
    // (within the stage's 1 px border)
    expect(Math.abs(foreground.y + foreground.height - (stage.y + stage.height))).toBeLessThanOrEqual(2);
    expect(Math.abs(foreground.width - stage.width)).toBeLessThanOrEqual(2);
    await page.fill('input[name="offset_y"]', '-656');
    await page.getByText('Output 1080×1920; video 1080×608 at (0, 656).').waitFor();
    await page.click('input[name="bg"][value="color"]');
    await page.selectOption('select[name="anchor"]', 'center');
    await screenshot(page, 'new-job-desktop');
    await page.uncheck('input[name="composition"]');
    await page.click('input[name="bg"][value="transparent"]');
  });

  it('starts a human job (transparent webm, 1 s preview), follows it to completion, plays and downloads the result', async () => {
    await page.selectOption('select[name="model"]', 'human');
    await page.selectOption('select[name="output_format"]', 'webm');
    await page.fill('input[name="preview_duration"]', '1');
    await page.click('button:has-text("Start job")');
    await page.waitForURL(/#\/jobs\/job_\w+$/);
    jobId = /#\/jobs\/(job_\w+)$/.exec(page.url())![1];
    await page.getByTestId('status').filter({ hasText: /^(pending|processing|completed)$/ }).waitFor();
    await screenshot(page, 'job-running-desktop');
    await page.getByTestId('status').filter({ hasText: 'completed' }).waitFor({ timeout: 150000 });

    const video = page.getByTestId('result-video');
    await video.waitFor();
    // it plays: frames are decoded and time advances
    // Polled with evaluate (run through the DevTools protocol): waitForFunction would eval inside the
    // page, which the dashboard's CSP (no unsafe-eval) refuses.
    const playsBy = Date.now() + 20000;
    while (!(await page.evaluate(RESULT_VIDEO_PLAYS))) {
      if (Date.now() > playsBy) throw new Error('the result video did not play');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // and a decoded frame is transparent around the person, opaque on them
    const alpha = (await page.evaluate(RESULT_FRAME_ALPHA)) as { width: number; height: number; clear: number; solid: number };
    expect(alpha).toMatchObject({ width: 640, height: 360 });
    expect(alpha.clear).toBeGreaterThan(0.3);
    expect(alpha.solid).toBeGreaterThan(0.02);
    // the file says how long it is, and the player can seek anywhere in it (duration and cues)
    const timeline = (await page.evaluate(RESULT_VIDEO_TIMELINE)) as { duration: number; seekableEnd: number };
    expect(timeline.duration).toBeCloseTo(1, 1);
    expect(timeline.seekableEnd).toBeCloseTo(1, 1);

    // the before/after slider moves the clip of the original over the result
    await page.getByRole('slider', { name: 'Before / after' }).fill('20');
    expect(await page.locator('.before-clip').getAttribute('style')).toContain('clip-path: inset(0px 80% 0px 0px)');
    await screenshot(page, 'job-completed-desktop');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download').click()]);
    expect(download.suggestedFilename()).toBe(`${jobId}.webm`);
    const bytes = readFileSync((await download.path())!);
    expect(bytes.readUInt32BE(0)).toBe(0x1a45dfa3); // EBML: a WebM file
    const job = await api<{ status: string }>(`/v1/jobs/${jobId}`);
    expect(job.body.status).toBe('completed');
  }, 200000);

  it('lists jobs with status filters and limit/offset pages', async () => {
    const job = await api<{ video_url: string }>(`/v1/jobs/${jobId}`);
    for (let draft = 0; draft < 2; draft += 1) {
      const created = await api('/v1/jobs', { method: 'POST', body: JSON.stringify({ video_url: job.body.video_url, model: 'light', auto_start: false }) });
      expect(created.status).toBe(200);
    }
    await page.goto(`${server.base}/#/jobs?limit=2`);
    await page.getByTestId('page-range').filter({ hasText: '1–2 of 3' }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(2);
    await screenshot(page, 'jobs-desktop');
    await page.click('a:has-text("Older →")');
    await page.getByTestId('page-range').filter({ hasText: '3–3 of 3' }).waitFor();
    await page.getByRole('link', { name: jobId }).waitFor();

    await page.click('a.chip:has-text("completed")');
    await page.getByTestId('page-range').filter({ hasText: '1–1 of 1' }).waitFor();
    await page.click('a.chip:has-text("created")');
    await page.getByTestId('page-range').filter({ hasText: '1–2 of 2' }).waitFor();
    await page.click('a.chip:has-text("failed")');
    await page.getByText('No jobs here yet.').waitFor();

    // a malformed escape in the hash: the job page says the API's 404, and no URIError leaves the page as it was
    await page.goto(`${server.base}/#/jobs/%E0%A4%A`);
    await page.getByText(/not found/i).first().waitFor();
  });

  it('a draft waits for its Start, not polled (it was polled for good); Start starts it and follows it to its end', async () => {
    const drafts = await api<{ items: Array<{ id: string }> }>('/v1/jobs?status=created&limit=1');
    const draftId = drafts.body.items[0].id;
    const polls: string[] = [];
    const count = (request: { url(): string; method(): string }) => void (request.method() === 'GET' && request.url().endsWith(`/v1/jobs/${draftId}`) && polls.push(request.url()));
    page.on('request', count);
    try {
      await page.goto(`${server.base}/#/jobs/${draftId}`);
      await page.getByTestId('start-draft').waitFor();
      await page.waitForTimeout(7500); // past the first two polls' 2 s and 5 s
      expect(polls).toHaveLength(1);
      await page.getByTestId('start-draft').click();
      await page.getByTestId('status').filter({ hasText: /pending|processing|completed/ }).waitFor();
      await page.getByTestId('status').filter({ hasText: 'completed' }).waitFor({ timeout: 120000 });
      expect(polls.length).toBeGreaterThan(1);
    } finally {
      page.off('request', count);
    }
  }, 180000);

  it('shows usage as a chart and a table, or the API’s error in words', async () => {
    const summary = await api<{ daily: unknown[]; credits_used: number; error?: { message: string } }>('/v1/usage/summary?days=7');
    const events = await api<{ items: unknown[]; error?: { message: string } }>('/v1/usage/events?limit=20');
    await page.goto(`${server.base}/#/usage`);
    if (summary.status === 200) {
      await page.getByTestId('usage-chart').waitFor();
      expect(await page.locator('[data-testid="usage-chart"] rect.bar-credits').count()).toBe(summary.body.daily.length);
      await page.locator('.tile', { hasText: 'credits used' }).filter({ hasText: String(summary.body.credits_used) }).waitFor();
    } else {
      await page.getByText(`Could not load the usage summary: ${summary.body.error!.message} (HTTP ${summary.status}`).waitFor();
    }
    if (events.status === 200 && events.body.items.length > 0) await page.locator('.events-table tbody tr').first().waitFor();
    else if (events.status !== 200) await page.getByText(`Could not load recent calls: ${events.body.error!.message} (HTTP ${events.status}`).waitFor();
    await screenshot(page, 'usage-desktop');
  });

  it('shows pricing from /api/pricing', async () => {
    const pricing = await api<{ model_pricing_credits_per_minute: Record<string, number> }>('/api/pricing');
    await page.goto(`${server.base}/#/pricing`);
    await page.locator('tr', { hasText: 'human' }).filter({ hasText: String(pricing.body.model_pricing_credits_per_minute.human) }).waitFor();
    await page.getByText('Starter').waitFor();
    await screenshot(page, 'pricing-desktop');
  });

  it('every page fits a 375 px wide phone', async () => {
    const phone = await browser.newContext({ viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true });
    const mobile = await phone.newPage();
    const phoneProblems = watchProblems(mobile);
    await useKey(mobile, server.key);
    const pages: Array<[string, string, string]> = [
      ['new', '#/new', 'Remove a background'],
      ['job', `#/jobs/${jobId}`, 'completed'],
      ['jobs', '#/jobs', 'Jobs'],
      ['usage', '#/usage', 'Usage'],
      ['pricing', '#/pricing', 'Starter'],
    ];
    for (const [name, hash, text] of pages) {
      await mobile.goto(`${server.base}/${hash}`);
      await mobile.getByText(text, { exact: true }).first().waitFor();
      if (name === 'new') {
        await mobile.setInputFiles('[data-testid="file-input"]', PORTRAIT);
        await mobile.getByText('Uploaded 188.4 KB').waitFor();
        await mobile.check('input[name="composition"]');
      }
      if (name === 'job') await mobile.getByTestId('result-video').waitFor();
      await mobile.waitForLoadState('networkidle');
      expect({ name, width: await mobile.evaluate(PAGE_WIDTH) }).toEqual({ name, width: 375 });
      await screenshot(mobile, `${name}-phone`);
    }
    expect(phoneProblems).toEqual([]);
    await phone.close();
  }, 60000);

  it('reported no script errors and no Content-Security-Policy refusals', () => {
    expect(problems).toEqual([]);
  });
});
