/**
 * GET /docs in Chromium with every other host closed: the reference renders from our origin alone (its renderer
 * is served with the console, functions/http/get-docs.ts), and the page asks no other origin for anything.
 * Skipped, with one line saying so, where /usr/bin/chromium is missing.
 */
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedStack } from '../support/shared-stack.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`docs browser test skipped: no ${CHROMIUM} (apt-get install chromium)`);

const stack = sharedStack();
let browser: Browser;

describe.skipIf(!hasChromium)('the API reference page in Chromium, offline but for our origin', () => {
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('renders every operation, and no request leaves our origin', async () => {
    const context = await browser.newContext();
    const ours = new URL(stack.baseUrl).origin;
    const elsewhere: string[] = [];
    // The network to any other host is closed: such a request fails, and is recorded.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === ours || url.startsWith('data:')) return route.continue();
      elsewhere.push(url);
      return route.abort('blockedbyclient');
    });
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));

    await page.goto(`${stack.baseUrl}/docs`);
    await expect
      .poll(() => page.locator('.opblock-summary-path').count(), { timeout: 60_000, interval: 200 })
      .toBeGreaterThan(5);
    expect(await page.locator('.opblock-summary-path', { hasText: '/api/v1/video/generate' }).count()).toBe(1);
    expect(await page.locator('#no-renderer').isHidden()).toBe(true);
    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
