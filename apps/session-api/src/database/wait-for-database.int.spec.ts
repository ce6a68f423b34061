import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.js';
import { StartupWaitError, waitForDatabase } from './wait-for-database.js';

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

  it('gives up after its timeout with the last error, naming what it waited for and where, without the password', async () => {
    const late = await lateDatabase();
    const url = new URL(late.url);
    url.password = 'hunter2';
    const waited = waitForDatabase(url.toString(), { timeoutMs: 300, firstDelayMs: 50, what: 'the key store (CHRONICLE_KEYSTORE_URL)', log: () => undefined });
    await expect(waited).rejects.toThrow(StartupWaitError);
    const message = await waited.catch((error: Error) => error.message);
    late.close();
    expect(message).toMatch(/^the key store \(CHRONICLE_KEYSTORE_URL\) at postgres:\/\/[^@]+:\*\*\*@127\.0\.0\.1:\d+\/\S+ did not answer within 0.3 s: /);
    expect(message).not.toContain('hunter2');
  });

  it('counts a server that answers without the database as reached when only the server is asked for (the key store makes its own)', async () => {
    const url = new URL(database.url);
    url.pathname = '/no_such_database_yet';
    await waitForDatabase(url.toString(), { serverOnly: true, timeoutMs: 300, log: () => undefined });
    await expect(waitForDatabase(url.toString(), { timeoutMs: 300, firstDelayMs: 50, log: () => undefined })).rejects.toThrow(/does not exist/);
  });
});
