import net from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';
import { scrapeMetric } from '../support/metrics.js';
import { pollUntil } from '../support/poll.js';

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen(0, '127.0.0.1');
  port = (t.app.getHttpServer().address() as AddressInfo).port;
});
afterAll(async () => {
  await t.close();
});

const disconnects = async (): Promise<number> => (await scrapeMetric(t.server, 'chronicle_client_disconnects_total')) ?? 0;

function rawRequest(text: string, closeAfterMs: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let received = '';
    socket.on('data', (chunk) => (received += String(chunk)));
    socket.on('error', () => undefined);
    setTimeout(() => {
      socket.resetAndDestroy();
      resolve(received);
    }, closeAfterMs);
  });
}

describe('a client that goes away mid-request', () => {
  it('is counted as a client disconnect, not answered with a 500, and the service keeps serving', async () => {
    await request(t.server).post('/v1/sessions').set(bearer(KEYS.ingest)).send({ sessionId: 'dc', createdAt: 1 });
    const before = await disconnects();

    // A body announced as 1000 bytes, 20 sent, then a reset (the broken pipe of the reference).
    const upload = await rawRequest(
      `POST /v1/sessions/dc/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS.ingest}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"rows":[{"role":"u`,
      150,
    );
    expect(upload).not.toContain('500');
    const waitFor = async (n: number) => {
      await pollUntil(`${n} client disconnects counted`, disconnects, (count) => count >= n);
      return disconnects();
    };
    expect(await waitFor(before + 1)).toBe(before + 1);

    // A live stream the client resets.
    await rawRequest(`GET /v1/sessions/dc/live HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS.read}\r\n\r\n`, 150);

    expect(await waitFor(before + 2)).toBe(before + 2);

    const res = await request(t.server).get('/v1/sessions/dc').set(bearer(KEYS.read));
    expect(res.status).toBe(200);
    expect(res.body.version).toBe(1);
  });
});
