import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { findAdminBuild } from '../../apps/session-api/src/admin/admin-dashboard.js';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';
import { launchChromium } from '../support/chromium.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

/**
 * The admin dashboard when the service says no, or says nothing: a session erased while its page is open, a
 * live feed the service keeps refusing, a search it refuses, a stored key it cannot check. Each test has a page
 * of its own; the browser reaches the app through a TCP proxy (test/support/tcp-proxy.ts), as in
 * dashboard.browser.spec.ts, so a test can cut its connections.
 */
const KEY_STORAGE = 'chronicle.admin.key';

let t: TestApp;
let proxy: TcpProxy;
let browser: Browser;
let page: Page;
let base: string;

const admin = bearer(KEYS.admin);
const now = () => Date.now() / 1000;
const post = async (path: string, body: object) => {
  const res = await request(t.server).post(path).set(admin).send(body);
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};
const signIn = async () => {
  await page.goto(`${base}/admin`);
  await page.getByLabel('API key').fill(KEYS.admin);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Sessions' }).waitFor();
};
/** The session list is an async index (the projector runs every 200 ms here): wait until it lists `sessionId`. */
const listed = async (sessionId: string, status?: string) => {
  for (let i = 0; i < 50; i++) {
    const res = await request(t.server).get(`/v1/sessions?q=${encodeURIComponent(sessionId)}`).set(admin);
    const item = (res.body.items ?? []).find((s: { sessionId: string }) => s.sessionId === sessionId);
    if (item && (status === undefined || item.status === status)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${sessionId} is not listed${status ? ` as ${status}` : ''}`);
};
/** Counts the requests to `/v1/sessions/{id}/live` the page makes from now on. */
const liveRequests = (sessionId: string) => {
  const urls: string[] = [];
  page.on('request', (req) => req.url().includes(`/v1/sessions/${sessionId}/live`) && urls.push(req.url()));
  return urls;
};

beforeAll(async () => {
  if (!findAdminBuild()) throw new Error('dist/admin is missing: run `npm run build:admin` (npm test builds it)');
  t = await startTestApp({ CHRONICLE_PROJECTOR_INTERVAL_MS: '200' });
  await t.app.listen(0, '127.0.0.1');
  const { port } = t.app.getHttpServer().address() as AddressInfo;
  proxy = await startTcpProxy(`http://127.0.0.1:${port}/`);
  base = proxy.url.replace(/\/$/, '');
  browser = await launchChromium();
}, 90_000);

beforeEach(async () => {
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.setDefaultTimeout(10_000);
});
afterEach(async () => page?.close());

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await t?.close();
});

describe('the admin dashboard when the service refuses or fails', () => {
  it('says a session erased while its page is open is erased: no title, status or content left, and the live feed stops', async () => {
    await post('/v1/sessions', { sessionId: 'erase-open', title: 'Private title' });
    await post('/v1/sessions/erase-open/submissions', { runId: 'r1', text: 'secret prompt', submittedAt: now() });
    await post('/v1/sessions/erase-open/runs/r1/journal', { events: [{ seq: 1, event: 'token', payload: { text: 'secret tokens' }, createdAt: now() }] });
    await signIn();
    await page.goto(`${base}/admin/#/sessions/erase-open`);
    await page.getByTestId('streaming-output').getByText('secret tokens').waitFor();
    await page.locator('.live-live').waitFor();
    await page.getByRole('heading', { name: 'Private title' }).waitFor();

    const live = liveRequests('erase-open');
    const liveAnswers: number[] = [];
    page.on('response', (res) => res.url().includes('/v1/sessions/erase-open/live') && liveAnswers.push(res.status()));
    await post('/v1/sessions/erase-open/erasure', { reason: 'test' });
    // Whatever ends the open stream (the erasure, a network blip), the page learns the session is gone.
    proxy.reset();

    const main = page.locator('main');
    // The service's problem details (410 SESSION_ERASED): "Session erase-open was erased at … (test); its content is gone."
    await main.locator('.problem').getByText('was erased at', { exact: false }).first().waitFor({ timeout: 15_000 });
    // Given time to retry, it does not: one refused reconnection at most, and nothing after it.
    await page.waitForTimeout(5000);
    const text = await main.innerText();
    expect(liveAnswers.filter((status) => status === 410).length).toBeLessThanOrEqual(1);
    expect(live.length).toBeLessThanOrEqual(1);
    expect(text).toContain('its content is gone');
    expect(text).not.toContain('Private title');
    expect(text).not.toContain('secret');
    expect(text).not.toContain('reconnecting');
    expect(await page.locator('main .badge[class*="status-"]').count()).toBe(0);
    expect(await page.locator('main [role="tabpanel"]').count()).toBe(0);
  });

  it('does not ask again every second when the live feed keeps failing: the backoff grows past the server’s hint', async () => {
    await post('/v1/sessions', { sessionId: 'flaky-live', title: 'Flaky live' });
    await signIn();
    await page.route('**/v1/sessions/flaky-live/live**', (route) =>
      route.fulfill({ status: 503, contentType: 'application/problem+json', body: JSON.stringify({ title: 'Service Unavailable', status: 503, code: 'DATABASE_UNAVAILABLE' }) }),
    );
    const live = liveRequests('flaky-live');
    await page.goto(`${base}/admin/#/sessions/flaky-live`);
    await page.getByText('reconnecting…').waitFor();
    const start = Date.now();
    await page.waitForTimeout(8000);
    // Retrying at a flat 1 s would be 8 or 9 requests by now; a doubling backoff (0.5 s, then 1–2 s, 2–4 s, 4–8 s) at most 5.
    expect(live.length).toBeGreaterThanOrEqual(2);
    expect(live.length).toBeLessThanOrEqual(5);
    // A 503 is worth retrying: once the service answers again, the feed is live.
    await page.unroute('**/v1/sessions/flaky-live/live**');
    await page.locator('.live-live').waitFor({ timeout: 20_000 });
    expect(Date.now() - start).toBeGreaterThan(8000);
  });

  it('shows no rows under a search the service refuses, only its problem', async () => {
    for (let i = 0; i < 3; i++) await post('/v1/sessions', { sessionId: `plain-${i}`, title: `Plain ${i}` });
    await listed('plain-2');
    await signIn();
    await page.getByRole('link', { name: 'Plain 2' }).waitFor();
    await page.getByLabel('Search sessions by title or id').fill('x'.repeat(201));
    // 400: query.q is at most 200 characters.
    await page.locator('.problem').getByText('query.q', { exact: false }).waitFor();
    expect(await page.getByRole('link', { name: 'Plain 2' }).count()).toBe(0);
    expect(await page.locator('.sessions-table tbody tr').count()).toBe(0);
    // The periodic refresh answers the same refusal: still no rows.
    await page.waitForTimeout(5500);
    expect(await page.locator('.sessions-table tbody tr').count()).toBe(0);
    // A search the service takes shows its own rows again.
    await page.getByLabel('Search sessions by title or id').fill('plain-1');
    await page.getByRole('link', { name: 'Plain 1' }).waitFor();
    expect(await page.locator('.problem').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Plain 2' }).count()).toBe(0);
  });

  it('keeps the tab’s key when the service cannot check it on a reload, says why, and signs in on “Try again”', async () => {
    await signIn();
    await page.route('**/v1/key', (route) =>
      route.fulfill({ status: 503, contentType: 'application/problem+json', body: JSON.stringify({ title: 'Service Unavailable', status: 503, code: 'DATABASE_UNAVAILABLE' }) }),
    );
    await page.reload();
    await page.getByText('Service Unavailable').waitFor();
    expect(await page.evaluate(`sessionStorage.getItem('${KEY_STORAGE}')`)).toBe(KEYS.admin);
    expect(await page.getByLabel('API key').count()).toBe(0);
    await page.unroute('**/v1/key');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    expect(await page.evaluate(`sessionStorage.getItem('${KEY_STORAGE}')`)).toBe(KEYS.admin);
  });

  it('forgets the tab’s key when the service refuses it on a reload', async () => {
    await signIn();
    await page.route('**/v1/key', (route) =>
      route.fulfill({ status: 401, contentType: 'application/problem+json', body: JSON.stringify({ title: 'Unauthorized', status: 401, code: 'UNAUTHORIZED' }) }),
    );
    await page.reload();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(`sessionStorage.getItem('${KEY_STORAGE}')`)).toBeNull();
    await page.unroute('**/v1/key');
  });

  it('filters by the "erased" status and shows its badge with a style of its own', async () => {
    await post('/v1/sessions', { sessionId: 'erased-listed', title: 'Gone soon' });
    await post('/v1/sessions/erased-listed/erasure', { reason: 'test' });
    await listed('erased-listed', 'erased');
    await signIn();
    await page.getByRole('radio', { name: 'erased' }).click();
    const row = page.locator('.sessions-table tbody tr').filter({ hasText: 'erased-listed' });
    await row.waitFor();
    expect(page.url()).toContain('status=erased');
    const badge = row.locator('.badge');
    expect(await badge.innerText()).toBe('erased');
    // Styled: not the colours of a badge whose status has no rule.
    // (Expressions as strings: the tests' TypeScript has no DOM library.)
    const styleOf = (selector: string) =>
      page.evaluate(`(() => {
        const style = getComputedStyle(document.querySelector(${JSON.stringify(selector)}));
        return [style.color, style.backgroundColor, style.boxShadow, style.textDecorationLine].join(' ');
      })()`);
    await page.evaluate(`(() => {
      const probe = document.createElement('span');
      probe.className = 'badge status-no-such-status';
      probe.id = 'badge-probe';
      document.body.append(probe);
    })()`);
    expect(await styleOf('.sessions-table .badge.status-erased')).not.toBe(await styleOf('#badge-probe'));
  });
});
