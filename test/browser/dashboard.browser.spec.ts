import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { findAdminBuild } from '../../apps/session-api/src/admin/admin-dashboard.js';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';
import { launchChromium } from '../support/chromium.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

/**
 * The admin dashboard in Debian's Chromium, or the one an npm package ships where Debian's is not installed
 * (never a downloaded browser), against the real app on a real PostgreSQL. The browser reaches the app through
 * a TCP proxy, so the test can cut the live SSE connection the way a network does. `npm test` builds the UI
 * first (the test database's migrate step runs `npm run build`); screenshots of each view go to test/artifacts/.
 */
const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));
const XSS_IMG = '<img src=x onerror="window.__xss=1">';
const XSS_LINK = '[click me](javascript:window.__xss=2)';

let t: TestApp;
let proxy: TcpProxy;
let browser: Browser;
let page: Page;
let base: string;
const dialogs: string[] = [];
const pageErrors: string[] = [];
const transcriptReads: string[] = [];

const admin = bearer(KEYS.admin);
const now = () => Date.now() / 1000;
const post = async (path: string, body: object) => {
  const res = await request(t.server).post(path).set(admin).send(body);
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};
const shot = (name: string) => page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: false });

async function seedRecoveringSession() {
  await post('/v1/sessions', { sessionId: 'crash-1', title: 'Checkout crash' });
  const t0 = now() - 600;
  await post('/v1/sessions/crash-1/submissions', { runId: 'run-0', text: `Render this: ${XSS_IMG} and ${XSS_LINK}`, submittedAt: t0 });
  await post('/v1/sessions/crash-1/runs/run-0/journal', {
    events: [
      { seq: 1, event: 'tool', payload: { name: 'search_docs', preview: 'checkout timeout', args: { q: 'checkout timeout' } }, createdAt: t0 + 1 },
      { seq: 2, event: 'tool_complete', payload: { name: 'search_docs', duration: 0.42 }, createdAt: t0 + 2 },
      { seq: 3, event: 'token', payload: { text: 'Done.' }, createdAt: t0 + 3 },
      { seq: 4, event: 'done', payload: {}, createdAt: t0 + 4 },
    ],
  });
  await post('/v1/sessions/crash-1/runs/run-0/settle', {
    rows: [
      { role: 'user', content: `Render this: ${XSS_IMG} and ${XSS_LINK}`, timestamp: t0 },
      {
        role: 'assistant',
        content: 'Here it is, **as text**: `<img>` tags stay inert.\n\n- one\n- two',
        reasoning: 'The user pasted HTML; show it verbatim.',
        timestamp: t0 + 4,
      },
    ],
    settledAt: t0 + 4,
  });
  // A turn whose worker vanished: the sweep decides it, and the marker waits for the journal ("recovering").
  await post('/v1/sessions/crash-1/submissions', { runId: 'run-1', text: 'Why did checkout fail?', submittedAt: now() - 120 });
  const sweep = await post('/v1/recovery/sweep', {});
  expect(sweep.interrupted).toBe(1);
}

beforeAll(async () => {
  if (!findAdminBuild()) throw new Error('dist/admin is missing: run `npm run build` (npm test does it)');
  mkdirSync(ARTIFACTS, { recursive: true });
  t = await startTestApp({ CHRONICLE_PROJECTOR_INTERVAL_MS: '200' });
  await t.app.listen(0, '127.0.0.1');
  const { port } = t.app.getHttpServer().address() as AddressInfo;
  proxy = await startTcpProxy(`http://127.0.0.1:${port}/`);
  base = proxy.url.replace(/\/$/, '');
  await seedRecoveringSession();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => message.type() === 'error' && pageErrors.push(message.text()));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('request', (req) => {
    if (req.url().includes('/transcript')) transcriptReads.push(req.url());
  });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await t?.close();
});

describe('the admin dashboard at /admin', () => {
  it('says a wrong key is wrong, and signs in with an admin key kept out of the URL', async () => {
    await page.goto(`${base}/admin`);
    await page.getByLabel('API key').fill('not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That key was refused.').waitFor();
    await page.getByText('Unauthorized').waitFor();
    await shot('1-sign-in-wrong-key');
    await page.getByLabel('API key').fill(KEYS.admin);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    expect(page.url()).not.toContain(KEYS.admin);
    expect(await page.evaluate("sessionStorage.getItem('chronicle.admin.key')")).toBe(KEYS.admin);
  });

  it('finds the interrupted session under "recovering"', async () => {
    await page.getByRole('radio', { name: 'recovering' }).click();
    await page.getByRole('link', { name: 'Checkout crash' }).waitFor({ timeout: 15_000 });
    await shot('2-sessions-recovering');
  });

  it('opens it: the marker with its cause and status, the XSS probes inert', async () => {
    await page.getByRole('link', { name: 'Checkout crash' }).click();
    const marker = page.locator('.msg-marker');
    await marker.getByText('Response interrupted.').waitFor();
    await marker.getByText('lost worker bookkeeping').waitFor();
    await marker.getByText('pending journal').waitFor();
    await shot('3-session-marker-pending');
    // The journal arrives late, with seq 2 missing: the open page re-derives the marker to "recovered".
    await post('/v1/sessions/crash-1/runs/run-1/journal', {
      events: [
        { seq: 1, event: 'token', payload: { text: 'The payment ' }, createdAt: now() - 100 },
        { seq: 3, event: 'token', payload: { text: 'provider timed out.' }, createdAt: now() - 99 },
      ],
    });
    await marker.getByText('recovered', { exact: true }).waitFor();
    await page.getByText('provider timed out.').first().waitFor();
    // The probes are shown as text: no <img> from content, no javascript: link, nothing ran.
    await page.locator('.vlist').evaluate((el) => (el.scrollTop = 0));
    await page.getByText('<img src=x onerror="window.__xss=1">', { exact: false }).first().waitFor();
    expect(await page.locator('.vlist img').count()).toBe(0);
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(await page.getByText('click me').first().evaluate((el) => el.closest('a'))).toBeNull();
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(dialogs).toEqual([]);
    // Reasoning is collapsed.
    expect(await page.locator('details.reasoning').first().getAttribute('open')).toBeNull();
    await shot('3-session-transcript-recovered');
  });

  it('shows tokens as they stream, through patches and not by refetching the transcript', async () => {
    await page.locator('.live-live').waitFor();
    const reads = transcriptReads.length;
    await post('/v1/sessions/crash-1/submissions', { runId: 'run-2', text: 'Retry the payment?', submittedAt: now() });
    await page.getByText('pending turn').waitFor();
    await post('/v1/sessions/crash-1/runs/run-2/journal', { events: [{ seq: 1, event: 'token', payload: { text: 'Retrying the ' }, createdAt: now() }] });
    await page.getByTestId('streaming-output').getByText('Retrying the').waitFor();
    await post('/v1/sessions/crash-1/runs/run-2/journal', { events: [{ seq: 2, event: 'token', payload: { text: 'payment now.' }, createdAt: now() }] });
    await page.getByTestId('streaming-output').getByText('Retrying the payment now.').waitFor();
    // A tool call while streaming: its card with state, then duration once complete.
    await post('/v1/sessions/crash-1/runs/run-2/journal', { events: [{ seq: 3, event: 'tool', payload: { name: 'charge_card', preview: 'order 1182', args: { order: 1182 } }, createdAt: now() }] });
    const card = page.locator('.msg-pending .tool-card');
    await card.getByText('charge_card').waitFor();
    await card.getByText('running').waitFor();
    await post('/v1/sessions/crash-1/runs/run-2/journal', { events: [{ seq: 4, event: 'tool_complete', payload: { name: 'charge_card', duration: 1.25 }, createdAt: now() }] });
    await card.getByText('done').waitFor();
    await shot('3b-session-streaming');
    expect(transcriptReads.length).toBe(reads);
  });

  it('says the live connection was interrupted when it is cut mid-response, and clears it once the settled transcript is back', async () => {
    proxy.reset();
    const notice = page.getByTestId('connection-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('Connection interrupted: the browser lost the live SSE connection before the response finished');
    expect(await page.content()).not.toContain('Connection lost');
    await shot('4-connection-notice');
    await post('/v1/sessions/crash-1/runs/run-2/settle', {
      rows: [
        { role: 'user', content: 'Retry the payment?', timestamp: now() - 1 },
        { role: 'assistant', content: 'Retrying the payment now.', timestamp: now() },
      ],
      settledAt: now(),
    });
    await notice.waitFor({ state: 'detached', timeout: 15_000 });
    await page.locator('.msg.role-assistant').getByText('Retrying the payment now.').waitFor();
    expect(await page.getByTestId('streaming-output').count()).toBe(0);
    // The notice is the browser's own: the session never stored it.
    const transcript = await request(t.server).get('/v1/sessions/crash-1/transcript').set(admin);
    expect(JSON.stringify(transcript.body)).not.toContain('Connection interrupted');
  });

  it('travels back to before the interruption, where the marker is not there yet', async () => {
    const events = await request(t.server).get('/v1/sessions/crash-1/events?limit=1000').set(admin);
    const interrupted = (events.body.items as { type: string; version: number }[]).find((e) => e.type === 'TurnInterrupted')!.version;
    await page.getByRole('tab', { name: 'Timeline' }).click();
    await page.getByRole('img', { name: 'Events over time by type' }).waitFor();
    const at = page.getByTestId('at-transcript');
    await at.getByText('Response interrupted.').waitFor();
    await page.getByRole('button', { name: new RegExp(`^v${interrupted - 1}\\b`) }).click();
    await page.getByTestId('at-version').getByText(String(interrupted - 1), { exact: true }).waitFor();
    expect(await page.locator('#version-slider').inputValue()).toBe(String(interrupted - 1));
    await at.getByText('Why did checkout fail?').waitFor();
    expect(await at.getByText('Response interrupted.').count()).toBe(0);
    await shot('5-timeline-before-interruption');
    // The slider moves by keyboard: one step on, the marker is there.
    await page.locator('#version-slider').focus();
    await page.keyboard.press('ArrowRight');
    await at.getByText('Response interrupted.').waitFor();
  });

  it('shows the late journal with its gap and terminal state', async () => {
    await page.getByRole('tab', { name: 'Runs' }).click();
    await page.getByLabel('Run').selectOption('run-1');
    await page.locator('.gap-row').getByText('missing').waitFor();
    await page.getByText('1 gap').waitFor();
    await shot('6-runs-journal');
  });

  it('runs the session audit and finds a match', async () => {
    await page.getByRole('tab', { name: 'Audit' }).click();
    await page.getByRole('button', { name: 'Run audit' }).click();
    await page.getByTestId('audit-result').getByText('match', { exact: true }).waitFor();
    await shot('7-audit-match');
  });

  it('runs the whole-store audit and a recovery sweep for an admin', async () => {
    await page.getByRole('link', { name: 'Operations' }).click();
    await page.getByRole('button', { name: 'Audit every session' }).click();
    await page.getByTestId('store-audit-result').getByText('match', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Run a sweep now' }).click();
    await page.getByTestId('sweep-result').getByText('Examined').waitFor();
    await shot('8-operations');
  });

  it('hides the admin actions from a read key', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').fill(KEYS.read);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('read only').waitFor();
    expect(await page.getByRole('link', { name: 'Operations' }).count()).toBe(0);
    await page.goto(`${base}/admin/#/sessions/crash-1/audit`);
    await page.getByText('Audits need an admin key').waitFor();
    expect(await page.getByRole('button', { name: 'Run audit' }).count()).toBe(0);
    // Every list has an empty state.
    await page.goto(`${base}/admin/#/?q=no-such-session`);
    await page.getByText('No session matches').waitFor();
    await shot('10-read-key-empty-state');
  });

  it('says a search that stopped short goes on under Older →, and then that nothing matches', async () => {
    // 5,001 sealed rows older than every session here (their content opens to nothing): a search reads at most
    // 5,000 index rows a page, so the first page ends empty with a cursor.
    await t.query(`INSERT INTO session_index (session_id, stream_id, status, version, last_activity_at, sealed)
                   SELECT 'filler-' || n, 'session-filler-' || n, 'active', 1, 1000 + n, '1:' FROM generate_series(1, 5001) n`);
    try {
      await page.goto(`${base}/admin/#/?q=nothing-like-this`);
      await page.getByText('No match among the sessions searched so far').waitFor();
      await page.getByRole('button', { name: 'Older →' }).click();
      await page.getByText('No session matches').waitFor();
      expect(await page.getByRole('button', { name: 'Older →' }).isDisabled()).toBe(true);
    } finally {
      await t.query(`DELETE FROM session_index WHERE session_id LIKE 'filler-%'`);
    }
  });

  // How fast it opens is a figure of `npm run bench` (bench/dashboard.bench.ts), not of this test.
  it('opens a 10,000-message session rendering only the rows in view', async () => {
    await post('/v1/sessions', { sessionId: 'long-1', title: 'Ten thousand messages' });
    for (let chunk = 0; chunk < 10; chunk++) {
      const rows = Array.from({ length: 1000 }, (_, i) => {
        const n = chunk * 1000 + i;
        return { role: n % 2 ? 'assistant' : 'user', content: `Message ${n}: some *markdown* and \`code\` to render.`, timestamp: 1_800_000_000 + n };
      });
      await post('/v1/sessions/long-1/messages', { rows });
    }
    await page.goto(`${base}/admin/#/`);
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    await page.goto(`${base}/admin/#/sessions/long-1`);
    await page.getByText('Message 9999:').waitFor();
    expect(await page.locator('.vrow').count()).toBeLessThan(60);
    // The middle of the list: rows not yet measured count at the list's estimate, so where half the height lands
    // depends on which rows were measured by then (on a loaded machine, fewer): rows around 5,000, give or take
    // a few hundred, and none from either end.
    await page.locator('.vlist').evaluate((el) => (el.scrollTop = el.scrollHeight * 0.5));
    await page.getByText(/Message (4[5-9]|5[0-4])\d\d:/).first().waitFor();
    expect(await page.getByText(/Message (\d{1,3}|9\d\d\d):/).count()).toBe(0);
    await shot('9-long-session');
    // The theme follows the system.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${base}/admin/#/sessions/crash-1`);
    await page.locator('.msg-marker').waitFor();
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(15, 19, 25)');
    await shot('11-dark-theme');
  });

  it('logged no error in the page but the refused key and the cut connection', () => {
    expect(pageErrors.filter((error) => !/401 \(Unauthorized\)|ERR_CONNECTION_RESET/.test(error))).toEqual([]);
  });
});
