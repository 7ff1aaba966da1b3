import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import packagedChromium from '@sparticuz/chromium';
import { Browser, chromium, Page } from 'playwright-core';
import { ROOT } from '../../support/processes';

export const SCREENSHOTS = path.join(ROOT, 'test-artifacts', 'screenshots');

/**
 * The Chromium binary shipped in the npm package @sparticuz/chromium (unpacked once into the OS temp
 * directory), so `npm ci` is all a fresh machine needs; CHROMIUM_PATH points at another build instead.
 */
export async function chromiumExecutable(): Promise<string> {
  return process.env.CHROMIUM_PATH ?? (await packagedChromium.executablePath());
}

/** Headless Chromium driven by playwright-core (which downloads no browser of its own). */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: await chromiumExecutable(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--autoplay-policy=no-user-gesture-required'],
  });
}

/** A full-page screenshot under test-artifacts/screenshots (kept for people to look at). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Problems the page reported: uncaught errors and Content-Security-Policy refusals. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  return problems;
}
