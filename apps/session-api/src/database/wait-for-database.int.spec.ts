import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.js';
import { waitForDatabase } from './wait-for-database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

/** A port that refuses connections until `open()` forwards it to the test database. */
async function lateDatabase(): Promise<{ url: string; open(): void; close(): void }> {
  const target = new URL(database.url);
  let forwarding = false;
  const server = net.createServer((socket) => {
    if (!forwarding) return socket.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(database.url);
  url.port = String((server.address() as AddressInfo).port);
  return { url: url.toString(), open: () => (forwarding = true), close: () => server.close() };
}

describe('waiting for the database at start', () => {
  it('retries with a growing delay, logging each attempt, until the server answers', async () => {
    const late = await lateDatabase();
    const attempts: { attempt: number; delayMs: number }[] = [];
    setTimeout(() => late.open(), 400);
    await waitForDatabase(late.url, { firstDelayMs: 50, maxDelayMs: 200, log: (attempt, delayMs) => attempts.push({ attempt, delayMs }) });
    late.close();
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(attempts[0]).toEqual({ attempt: 1, delayMs: 50 });
    expect(attempts[1]).toEqual({ attempt: 2, delayMs: 100 });
    expect(Math.max(...attempts.map((a) => a.delayMs))).toBeLessThanOrEqual(200);
  });

  it('gives up after its timeout with the last error', async () => {
    const late = await lateDatabase();
    await expect(waitForDatabase(late.url, { timeoutMs: 300, firstDelayMs: 50, log: () => undefined })).rejects.toThrow();
    late.close();
  });
});
