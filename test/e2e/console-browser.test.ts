/**
 * The console in a real browser (docs/console.md): Debian's Chromium driven by playwright-core through sign-up, a
 * redeemed code, a key made and copied, a task paid with it over the public API that appears and plays, the key
 * disabled (the next call is 401), renamed, its tasks listed and deleted for good, a webhook test event a receiver verifies, the ledger's entries, and a top-up
 * paid at the Alipay simulator.
 * Skipped, with one line saying so, where /usr/bin/chromium is missing (`.ci/run` installs it).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../functions/core/api-key.js';
import { callApi } from '../support/test-stack.js';
import { sharedStack } from '../support/shared-stack.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`console browser tests skipped: no ${CHROMIUM} (apt-get install chromium)`);

const stack = sharedStack();
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const received: { headers: Record<string, string>; body: string }[] = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  req.on('end', () => {
    received.push({ headers: req.headers as Record<string, string>, body });
    res.writeHead(204).end();
  });
});

/** What the test uses of the page's HTMLVideoElement (the tests' compiler has no DOM types). */
interface VideoElement {
  muted: boolean;
  currentTime: number;
  error: { code: number } | null;
  play(): Promise<void>;
  addEventListener(type: 'timeupdate', listener: () => void): void;
}

/** For what the page shows after a request: the default 1 s of expect.poll missed under a loaded CI run. */
const EVENTUALLY = { timeout: 60_000, interval: 200 };

describe.skipIf(!hasChromium)('the console in Chromium', () => {
  const byId = (id: string) => page.getByTestId(id);
  const email = `browser-${randomUUID().slice(0, 8)}@example.com`;
  let key = '';
  let keyId = '';
  let taskId = '';

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.baseUrl });
    page = await context.newPage();
    page.setDefaultTimeout(60_000);
    page.on('pageerror', (error) => pageErrors.push(String(error)));
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('signs up with the emailed code (a wrong one is refused in words) and lands on a zero balance', async () => {
    await page.goto(`${stack.baseUrl}/console`);
    await byId('to-signup').click();
    await byId('signup-email').fill(email);
    await byId('signup-password').fill(`Pw-${randomUUID()}!`);
    await byId('signup-submit').click();
    await byId('confirm-code').fill('000000');
    await byId('confirm-submit').click();
    await expect.poll(() => byId('auth-error').textContent(), EVENTUALLY).toMatch(/code/i);
    await byId('confirm-code').fill(stack.console.cognito.confirmationCode);
    await byId('confirm-submit').click();
    await expect.poll(() => byId('balance').textContent(), EVENTUALLY).toMatch(/0\.00/);
    // Fits a phone: nothing scrolls sideways.
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
  });

  it('redeems a top-up code: the balance rises and the ledger shows the entry', async () => {
    const { codes } = await stack.admin.createRedeemCodes('30', 1, 7);
    await byId('redeem-code').fill(codes[0]!.toLowerCase());
    await byId('redeem-submit').click();
    await expect.poll(() => byId('redeem-result').textContent(), EVENTUALLY).toMatch(/30/);
    await expect.poll(() => byId('balance').textContent(), EVENTUALLY).toMatch(/30\.00/);
    // The same code again adds nothing, and says so.
    await byId('redeem-code').fill(codes[0]!);
    await byId('redeem-submit').click();
    await expect.poll(() => byId('redeem-already').textContent(), EVENTUALLY).toMatch(/already.*nothing was added/);
    expect(await byId('redeem-result').count()).toBe(0);
    await byId('nav-transactions').click();
    await expect
      .poll(() => byId('transaction-type').allTextContents(), EVENTUALLY)
      .toEqual([expect.stringMatching(/top/i)]);
    // Times carry their zone.
    expect(await byId('transaction-row').first().locator('td').first().textContent()).toMatch(/(UTC|GMT)/);
  });

  it('creates a key, shown once and copied to the clipboard', async () => {
    await byId('nav-keys').click();
    await byId('key-name').fill('browser');
    await byId('key-create-submit').click();
    key = await byId('new-key-value').inputValue();
    expect(key).toMatch(/^bc_/);
    await byId('new-key-copy').click();
    await byId('new-key-copied').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
    keyId = (await page.locator('[data-testid=key-row]').first().getAttribute('data-key-id')) ?? '';
    expect(keyId).toMatch(/^key_/);
  });

  it('shows a task paid with that key, and plays its video once it succeeds', async () => {
    const submitted = await callApi<{ task_id: string }>(stack, 'POST', '/api/v1/video/generate', {
      key,
      body: { model: 'seedance-1.5-pro', prompt: 'a paper boat on a pond', duration: 5 },
    });
    expect(submitted.status).toBe(200);
    taskId = submitted.body.data.task_id;
    await byId('nav-tasks').click();
    const row = page.locator(`[data-testid=task-row][data-task-id="${taskId}"][data-status=success]`);
    await row.waitFor({ timeout: 120_000 });
    // The status as the API names it; the player only when asked for.
    expect(await row.getByTestId('task-status').textContent()).toBe('success');
    expect(await row.locator('video').count()).toBe(0);
    await row.getByTestId('task-play').click();
    const video = row.locator('video');
    await video.waitFor();
    const played = await video.evaluate(async (element: VideoElement) => {
      element.muted = true;
      await element.play();
      await new Promise<void>((resolve) => {
        if (element.currentTime > 0) resolve();
        element.addEventListener('timeupdate', () => element.currentTime > 0 && resolve());
      });
      return { currentTime: element.currentTime, error: element.error?.code ?? null };
    });
    expect(played.error).toBeNull();
    expect(played.currentTime).toBeGreaterThan(0);
  });

  it("warns at 80 % and 100 % of a key's quota; keys keep one order across reloads; unnamed keys get a label", async () => {
    await byId('nav-keys').click();
    await byId('key-name').fill('capped');
    await byId('key-quota').fill('5');
    await byId('key-create-submit').click();
    const capped = await byId('new-key-value').inputValue();
    await byId('new-key-dismiss').click();
    // 4.2 of 5 CNY spent: 84 %.
    const paid = await callApi(stack, 'POST', '/api/v1/video/generate', {
      key: capped,
      body: { model: 'seedance-1.5-pro', prompt: 'a kite in the wind', duration: 5 },
    });
    expect(paid.status).toBe(200);
    const order = async () => {
      await page.reload();
      await byId('key-row').first().waitFor();
      return page
        .locator('[data-testid=key-row]')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-key-id')));
    };
    // A key made with the admin CLI has no name: it is listed with a readable label, not its id twice.
    const browserKey = await stack.db.send(
      new GetCommand({ TableName: stack.names.tables.apiKeys, Key: { key_hash: hashApiKey(key) } }),
    );
    await stack.admin.createKey({ accountId: browserKey.Item?.['account_id'] as string });
    const first = await order();
    expect(await order()).toEqual(first);
    expect(await page.locator('[data-testid=key-row]', { hasText: 'Unnamed key of' }).count()).toBe(1);
    const row = page.locator('[data-testid=key-row]', { hasText: 'capped' });
    await expect.poll(() => row.getByTestId('key-quota-warning').getAttribute('data-level'), EVENTUALLY).toBe('80');
    await row.getByTestId('key-quota-edit').click();
    await row.getByTestId('key-quota-input').fill('4.2');
    await row.getByTestId('key-quota-save').click();
    await expect.poll(() => row.getByTestId('key-quota-warning').getAttribute('data-level'), EVENTUALLY).toBe('100');
  });

  it('disables the key: the next API call is 401', async () => {
    await byId('nav-keys').click();
    const row = page.locator(`[data-testid=key-row][data-key-id="${keyId}"]`);
    // Asked first: dismissed, nothing changes.
    page.once('dialog', (dialog) => void dialog.dismiss());
    await row.getByTestId('key-toggle').click();
    expect(await row.getAttribute('data-status')).toBe('active');
    expect((await callApi(stack, 'GET', '/api/v1/account/balance', { key })).status).toBe(200);
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByTestId('key-toggle').click();
    await page.locator(`[data-testid=key-row][data-key-id="${keyId}"][data-status=disabled]`).waitFor();
    const refused = await callApi(stack, 'GET', '/api/v1/account/balance', { key });
    expect(refused.status).toBe(401);
  });

  it('tells keys apart by their ends, renames one, lists its tasks, and deletes it for good', async () => {
    const row = page.locator(`[data-testid=key-row][data-key-id="${keyId}"]`);
    expect(await row.getByTestId('key-hint').textContent()).toBe(`${key.slice(0, 7)}…${key.slice(-4)}`);
    // The rate as a number, the default one too.
    expect(await row.getByTestId('key-rate-label').textContent()).toMatch(/^\d+ requests\/s \(the default\)$/);
    await row.getByTestId('key-rename').click();
    await row.getByTestId('key-rename-input').fill('renamed');
    await row.getByTestId('key-rename-save').click();
    await expect.poll(() => row.getByTestId('key-name-label').textContent(), EVENTUALLY).toBe('renamed');

    // Its tasks only: the quota test's task was paid with another key.
    await row.getByTestId('key-tasks-link').click();
    await expect.poll(() => byId('task-key-filter').inputValue(), EVENTUALLY).toBe(keyId);
    await expect
      .poll(
        () =>
          page.locator('[data-testid=task-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-task-id'))),
        EVENTUALLY,
      )
      .toEqual([taskId]);

    await byId('nav-keys').click();
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByTestId('key-delete').click();
    await page.locator(`[data-testid=deleted-key-row][data-key-id="${keyId}"]`).waitFor();
    expect(await row.count()).toBe(0);
    const refused = await callApi(stack, 'GET', '/api/v1/account/balance', { key });
    expect(refused.status).toBe(401);
    expect(refused.body.message).toMatch(/deleted/);
  });

  it('sends a webhook test event the receiver verifies with the revealed secret', async () => {
    await byId('nav-webhooks').click();
    // The page has changed once its own controls show.
    await byId('webhook-secret-reveal').waitFor();
    // The field the API takes.
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain('webhook_url');
    expect(text).not.toContain('callback_url');
    await byId('webhook-secret-reveal').click();
    await page.locator('[data-testid=webhook-secret][data-revealed=true]').waitFor();
    const secret = await byId('webhook-secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await byId('webhook-test-url').fill(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`);
    await byId('webhook-test-submit').click();
    await page.locator('[data-testid=webhook-test-result][data-delivered=true]').waitFor();
    expect(received).toHaveLength(1);
    const payload = new Webhook(secret).verify(received[0]!.body, received[0]!.headers);
    expect(payload).toMatchObject({ type: 'task.succeeded', status: 'success', test: true });
    // No task asked for a webhook: the delivery log says so, not a blank.
    await expect.poll(() => byId('deliveries-empty').count(), EVENTUALLY).toBe(1);
  });

  it('lists the charges beside the top-up, and the overview agrees', async () => {
    await byId('nav-transactions').click();
    // The top-up and two charges (the quota test's task too).
    await expect.poll(() => byId('transaction-row').count(), EVENTUALLY).toBe(3);
    // The charge's task id, whole, links to the task.
    const link = page.locator('[data-type=charge] [data-testid=transaction-task-link]', { hasText: taskId });
    expect(await link.textContent()).toBe(taskId);
    await link.click();
    await page.locator(`[data-testid=linked-task] [data-task-id="${taskId}"]`).waitFor();
    await byId('nav-overview').click();
    await expect.poll(() => byId('tasks-this-month').textContent(), EVENTUALLY).toMatch(/2/);
    expect(pageErrors).toEqual([]);
  });

  it('tops up with Alipay: a QR code, the simulator pays it, the order turns paid and the balance rises once', async () => {
    await byId('nav-overview').click();
    await expect.poll(() => byId('balance').textContent(), EVENTUALLY).toMatch(/\d/);
    const before = Number((await byId('balance').textContent())?.replace(/[^\d.]/g, ''));
    await byId('nav-topup').click();
    await expect.poll(() => byId('topups-empty').count(), EVENTUALLY).toBe(1);
    await byId('topup-preset-100').click();
    await byId('topup-submit').click();
    await byId('topup-qr').waitFor();
    expect(await byId('topup-status').getAttribute('data-status')).toBe('pending');
    await byId('topup-simulate-pay').click();
    // The page asks about the order by itself: no reload.
    await page.locator('[data-testid=topup-status][data-status=paid]').waitFor({ timeout: 60_000 });
    expect(await byId('topup-paid-amount').textContent()).toMatch(/100\.00/);
    await expect.poll(() => page.locator('[data-testid=topup-row][data-status=paid]').count(), EVENTUALLY).toBe(1);
    await byId('nav-overview').click();
    await expect
      .poll(async () => Number((await byId('balance').textContent())?.replace(/[^\d.]/g, '')), EVENTUALLY)
      .toBe(before + 100);
    expect(pageErrors).toEqual([]);
  });
});
