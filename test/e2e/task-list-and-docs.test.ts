/**
 * Over HTTP against the local stack: the task list (pages, status filter, another account's cursor), the request
 * id on every kind of answer, the health route, and the OpenAPI document and its page (docs/api-contract.md, "Listing tasks", "Request ids", "OpenAPI document").
 * Every callApi answer is also checked against the served document (test/support/openapi-validator.ts).
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { randomUUID } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { askedAgainWhileBusy, callApi, newAccount, pollUntil } from '../support/test-stack.js';
import { sharedStack } from '../support/shared-stack.js';

interface ListedTask {
  task_id: string;
  status: string;
  created_at: string;
}
interface Page {
  items: ListedTask[];
  next_cursor: string | null;
}

const stack = sharedStack();

const submit = async (key: string, prompt: string) => {
  const response = await callApi<{ task_id: string }>(stack, 'POST', '/api/v1/video/generate', {
    key,
    body: { model: 'seedance-1.5-pro', prompt, duration: 5 },
  });
  expect(response.status).toBe(200);
  return response.body.data.task_id;
};

const list = (key: string, query = '') => callApi<Page>(stack, 'GET', `/api/v1/video/tasks${query}`, { key });

/** Every page from the first, following next_cursor. */
async function allPages(key: string, query: string): Promise<Page[]> {
  const pages: Page[] = [];
  let cursor: string | null = null;
  do {
    const separator = query ? '&' : '?';
    const response = await list(key, `${query}${cursor ? `${separator}cursor=${cursor}` : ''}`);
    expect(response.status).toBe(200);
    pages.push(response.body.data);
    cursor = response.body.data.next_cursor;
  } while (cursor && pages.length < 20);
  return pages;
}

describe('GET /api/v1/video/tasks', () => {
  it("pages through the caller's tasks newest first, each as GET /video/tasks/{id} shows it", async () => {
    const { key } = await newAccount(stack, '100');
    const other = await newAccount(stack, '100');
    const ids: string[] = [];
    for (const n of [1, 2, 3, 4, 5]) ids.push(await submit(key, `list paging ${n}`));
    await submit(other.key, 'someone else');

    // The index may lag its table by a moment: wait until all five are listed.
    const pages = await pollUntil(
      () => allPages(key, '?limit=2'),
      (found) => found.flatMap((page) => page.items).length === 5,
    );
    expect(pages.map((page) => page.items.length)).toEqual([2, 2, 1]);
    expect(pages.at(-1)?.next_cursor).toBeNull();
    const listed = pages.flatMap((page) => page.items);
    expect(listed.map((task) => task.task_id).sort()).toEqual([...ids].sort());
    const times = listed.map((task) => task.created_at);
    expect(times).toEqual([...times].sort().reverse());

    // A listed task is the status query's task (once it is final, nothing live is left to differ).
    const first = listed[0] as ListedTask;
    const single = await pollUntil(
      async () => (await callApi<ListedTask>(stack, 'GET', `/api/v1/video/tasks/${first.task_id}`, { key })).body.data,
      (task) => task.status === 'success',
    );
    const again = (await list(key, '?limit=100')).body.data.items.find((task) => task.task_id === first.task_id);
    expect(again).toEqual(single);
  });

  it("filters by status, and refuses a bad limit, status or cursor, and another account's cursor, with 400", async () => {
    const { key } = await newAccount(stack, '100');
    const other = await newAccount(stack, '100');
    const kept = await submit(key, 'status filter kept');
    // Held in the upstream's queue, where a cancel is always accepted (a job that runs cannot be cancelled).
    const held = `status filter cancelled ${randomUUID()}`;
    onTestFinished(async () => {
      const release = `${stack.endpoints.upstreams.ark.baseUrl}/simulator/release?prompt=${encodeURIComponent(held)}`;
      await fetch(release, { method: 'POST' });
    });
    const cancelled = await submit(key, `${held} [simulate:held-queued]`);
    // Asked again on a 429: the cancel may land while the task is being started upstream.
    const cancel = await askedAgainWhileBusy(() =>
      callApi(stack, 'POST', `/api/v1/video/tasks/${cancelled}/cancel`, { key }),
    );
    expect(cancel.status).toBe(200);
    const refunded = await pollUntil(
      async () => (await list(key, '?status=refunded')).body.data.items,
      (items) => items.length === 1,
    );
    expect(refunded.map((task) => [task.task_id, task.status])).toEqual([[cancelled, 'refunded']]);
    expect(refunded.map((task) => task.task_id)).not.toContain(kept);

    for (const query of [
      '?limit=0',
      '?limit=101',
      '?limit=x',
      '?status=done',
      '?cursor=%%%',
      '?cursor=abc',
      '?color=red',
    ]) {
      const response = await list(key, query);
      expect(response.status, query).toBe(400);
      expect(response.body.code).toBe(400);
    }
    for (const n of [1, 2]) await submit(other.key, `other account ${n}`);
    const theirs = await pollUntil(
      async () => (await list(other.key, '?limit=1')).body.data,
      (page) => page.next_cursor !== null,
    );
    const stolen = await list(key, `?cursor=${theirs.next_cursor}`);
    expect(stolen.status).toBe(400);
    expect(stolen.body.message).toMatch(/cursor/);
  });
});

describe('X-Request-Id', () => {
  it("is on every answer: success, errors, the default route, a body over 256 KiB, the gateway's own 413", async () => {
    const { key } = await newAccount(stack, '1');
    const answers = [
      await callApi(stack, 'GET', '/api/v1/account/balance', { key }),
      await callApi(stack, 'GET', '/api/v1/account/balance', { key: 'bc_nobodynobodynobodynobody' }),
      await callApi(stack, 'GET', '/api/v1/video/tasks/not-a-uuid', { key }),
      await callApi(stack, 'GET', '/api/v1/no-such-route'),
      await callApi(stack, 'POST', '/api/v1/video/generate', { key, rawBody: 'x'.repeat(300 * 1024) }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 400, 404, 400]);
    const ids = answers.map((answer) => answer.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(ids.length);

    const tooLarge = await fetch(`${stack.baseUrl}/api/v1/video/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(7 * 1024 * 1024),
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('GET /api/v1/health', () => {
  it('answers 200 {status: ok} without an API key', async () => {
    const response = await callApi(stack, 'GET', '/api/v1/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ code: 0, message: 'success', data: { status: 'ok' } });
  });
});

describe('the OpenAPI document and its page', () => {
  it('GET /api/v1/openapi.json: valid OpenAPI 3.1, without an API key', async () => {
    const response = await fetch(`${stack.baseUrl}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const document = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toContain('/api/v1/video/tasks');
    await expect(SwaggerParser.validate(document as never)).resolves.toBeTruthy();
  });

  it('GET /docs: an HTML page that renders the document', async () => {
    const response = await fetch(`${stack.baseUrl}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const page = await response.text();
    expect(page).toContain("url: '/api/v1/openapi.json'");
    // Every file the page loads is ours: no src or href names another origin.
    expect([...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1])).toEqual([
      '/console/docs/swagger-ui.css',
      '/api/v1/openapi.json',
      '/api/v1/openapi.json',
      '/console/docs/swagger-ui-bundle.js',
    ]);
    for (const file of ['swagger-ui.css', 'swagger-ui-bundle.js']) {
      expect((await fetch(`${stack.baseUrl}/console/docs/${file}`)).status, file).toBe(200);
    }
  });
});
