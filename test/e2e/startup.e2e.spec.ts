import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '#platform';
import { KEYS, TEST_KEYS_SPEC } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { pollUntil } from '../support/poll.js';
import { startEmbeddedServiceMain, startServiceMain } from '../support/service-main.js';

// Issue 11 item 7, at the process level: the built service's start, as an operator sees it.
let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'chronicle-startup-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a configuration error', () => {
  it('stops the start with exit 2 and one line, no stack, before any database is touched', async () => {
    const dataDir = join(scratch, 'never-created');
    const main = startServiceMain({ PORT: 'eighty', CHRONICLE_DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    expect(await main.exited).toBe(2);
    expect(main.stderr()).toMatch(/^chronicle failed to start: invalid configuration: PORT: [^\n]+\n$/);
    expect(main.stdout()).toBe('');
    // No embedded cluster, no generated key: the data folder was never made.
    expect(existsSync(dataDir)).toBe(false);
  });

  it('names a malformed master key, current or previous, the same way, before any database is touched', async () => {
    const good = Buffer.alloc(32, 7).toString('base64');
    for (const [env, variable] of [
      [{ CHRONICLE_MASTER_KEY: 'notbase64' }, 'CHRONICLE_MASTER_KEY'],
      [{ CHRONICLE_MASTER_KEY: good, CHRONICLE_MASTER_KEY_PREVIOUS: 'bogus' }, 'CHRONICLE_MASTER_KEY_PREVIOUS'],
    ] as const) {
      const dataDir = join(scratch, `never-created-${variable}`);
      const main = startServiceMain({ ...env, CHRONICLE_DATA_DIR: dataDir, LOG_LEVEL: 'info' });
      expect(await main.exited).toBe(2);
      expect(main.stderr()).toMatch(new RegExp(`^chronicle failed to start: invalid configuration: ${variable}: a master key is 32 bytes[^\n]+\n$`));
      expect(main.stdout()).toBe('');
      expect(existsSync(dataDir)).toBe(false);
    }
  });

  it('names a malformed key list the same way', async () => {
    const main = startServiceMain({ CHRONICLE_API_KEYS: 'k1:everything', DATABASE_URL: 'postgres://127.0.0.1:1/none', LOG_LEVEL: 'info' });
    expect(await main.exited).toBe(2);
    expect(main.stderr().split('\n').filter(Boolean)).toEqual([expect.stringMatching(/^chronicle failed to start: invalid configuration: /)]);
    expect(main.stdout()).not.toContain('database');
  });
});

describe('a DATABASE_URL that is not reachable yet at start', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('is retried with a growing delay, each attempt logged, and "database ready" comes only once it answers', async () => {
    // A port that cuts every connection until `forwarding` opens it to the test database.
    const target = new URL(database.url);
    let forwardingSince = 0;
    const gate = net.createServer((socket) => {
      if (!forwardingSince) return socket.destroy();
      const upstream = net.connect(Number(target.port), target.hostname);
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve));
    const url = new URL(database.url);
    url.port = String((gate.address() as AddressInfo).port);
    const port = await freePort();
    const main = startServiceMain({
      DATABASE_URL: url.toString(),
      PORT: String(port),
      HOST: '127.0.0.1',
      CHRONICLE_API_KEYS: TEST_KEYS_SPEC,
      LOG_LEVEL: 'info',
      CHRONICLE_RECOVERY_INTERVAL_MS: '0',
    });
    try {
      const retries = () => main.lines.filter((line) => line.msg === 'database not reachable yet; retrying');
      await pollUntil('three connection retries logged', () => retries().length >= 3, Boolean, { timeoutMs: 20_000, intervalMs: 50 });
      forwardingSince = Date.now();
      const readyStatus = () => fetch(`http://127.0.0.1:${port}/health/ready`).then((r) => r.status, () => 0);
      await pollUntil('ready 200 once the database is reachable', readyStatus, (status) => status === 200, { timeoutMs: 20_000, intervalMs: 100 });
      // Log lines leave in blocks at most 250 ms apart.
      const listening = () => main.lines.some((line) => String(line.msg).startsWith('Chronicle listening'));
      await pollUntil('the "Chronicle listening" log line', listening, Boolean, { timeoutMs: 3_000, intervalMs: 50 });
      const messages = main.lines.map((line) => line.msg);
      const ready = main.lines.filter((line) => line.msg === 'database ready');
      expect(ready).toHaveLength(1);
      expect(ready[0].time as number).toBeGreaterThanOrEqual(forwardingSince);
      const delays = retries().map((line) => line.retryInMs as number);
      expect(delays.slice(0, 3)).toEqual([250, 500, 1000]);
      expect(retries()[0]).toMatchObject({ level: 40, attempt: 1, err: expect.any(String) });
      // Every retry before "database ready", and the service listens only after it.
      const readyAt = messages.indexOf('database ready');
      expect(messages.lastIndexOf('database not reachable yet; retrying')).toBeLessThan(readyAt);
      expect(messages.findIndex((msg) => String(msg).startsWith('Chronicle listening'))).toBeGreaterThan(readyAt);
    } finally {
      main.child.kill('SIGTERM');
      await main.exited;
      gate.close();
    }
  }, 60_000);
});

describe('SIGTERM with the embedded database, under writes', () => {
  const headers = { authorization: `Bearer ${KEYS.admin}`, 'content-type': 'application/json' };
  const ready = async (base: string) =>
    pollUntil('ready 200 on the embedded database', () => fetch(`${base}/health/ready`).then((r) => r.status, () => 0), (status) => status === 200, {
      timeoutMs: 60_000,
      intervalMs: 100,
    });

  it('answers the writes it took, then stops PostgreSQL and exits 0; every acknowledged write is there after a restart', async () => {
    const dataDir = join(scratch, 'embedded-sigterm');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const post = (path: string, body: unknown) => fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const main = startEmbeddedServiceMain(dataDir, port);
    const writers = 6;
    /** Per writer, the stream version its last acknowledged write answered. */
    const acknowledged = new Array<number>(writers).fill(0);
    const failures: string[] = [];
    try {
      await ready(base);
      for (let w = 0; w < writers; w += 1) {
        expect((await post('/v1/sessions', { sessionId: `sigterm-${w}` })).status).toBe(201);
        expect((await post(`/v1/sessions/sigterm-${w}/submissions`, { runId: 'r1', text: 'go', submittedAt: 1_700_000_000 })).status).toBe(200);
      }
      // Each writer streams 200-token journal POSTs, one at a time, until the service is gone.
      let answered = 0;
      const stream = async (w: number) => {
        for (let n = 0; ; n += 1) {
          const events = Array.from({ length: 200 }, (_, i) => ({ seq: n * 200 + i + 1, event: 'token', payload: { text: 'x' }, createdAt: 1_700_000_001 }));
          try {
            // A fresh connection for each POST: once the service has stopped listening, one is refused before anything is sent.
            const response = await fetch(`${base}/v1/sessions/sigterm-${w}/runs/r1/journal`, { method: 'POST', headers: { ...headers, connection: 'close' }, body: JSON.stringify({ events }) });
            const body = (await response.json()) as { version?: number; code?: string };
            answered += 1;
            if (response.status === 200) acknowledged[w] = body.version as number;
            // Sent once shutdown had begun: refused at once, nothing done (a client sends it again elsewhere).
            else if (response.status === 503 && body.code === 'SHUTTING_DOWN') return;
            else failures.push(`${response.status} ${JSON.stringify(body)}`);
          } catch (error) {
            // Refused (the listener is closed) or reset (taken by the kernel, never read): nothing acknowledged.
            const code = (error as { cause?: { code?: string } }).cause?.code;
            if (code === 'ECONNREFUSED') return;
            if (code !== 'ECONNRESET' && code !== 'UND_ERR_SOCKET') failures.push(String(code ?? error));
          }
        }
      };
      const streams = Array.from({ length: writers }, (_, w) => stream(w));
      await pollUntil('writes answered', () => answered, (count) => count >= 3 * writers, { timeoutMs: 20_000, intervalMs: 20 });
      main.child.kill('SIGTERM');
      expect(await main.exited).toBe(0);
      await Promise.all(streams);
      // No write was refused because the database went first (it had been: 503s, and exit 143).
      expect(failures).toEqual([]);
      const messages = main.lines.map((line) => line.msg);
      expect(messages).toContain('shutting down');
      expect(messages).not.toContain('embedded PostgreSQL exited; restarting it');
    } finally {
      if (main.child.exitCode === null) main.child.kill('SIGKILL');
    }
    const again = startEmbeddedServiceMain(dataDir, port);
    try {
      await ready(base);
      for (let w = 0; w < writers; w += 1) {
        const summary = (await (await fetch(`${base}/v1/sessions/sigterm-${w}`, { headers })).json()) as { version: number };
        expect(summary.version).toBeGreaterThanOrEqual(acknowledged[w]);
      }
      expect(Math.min(...acknowledged)).toBeGreaterThan(2);
    } finally {
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    }
  }, 180_000);
});
