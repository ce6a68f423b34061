import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import type { App } from 'supertest/types.js';
import type { SessionKeyring } from '#event-store';
import { loadConfig, parseApiKeys } from '#platform';
import { createApp } from '../../apps/session-api/src/app.factory.js';
import { KEYRING } from '../../apps/session-api/src/database/database.module.js';
import { bearer, KEYS, startTestApp, TEST_KEYS_SPEC, TEST_MASTER_KEY, type TestApp } from '../support/app.js';
import { expectStatus, ingestClient } from '../support/ingest.js';
import { pollUntil } from '../support/poll.js';
import { dataOf, openEventStream } from '../support/server-sent-events.js';

/**
 * An erasure reaches every replica (README "Personal data"): two services on one database, the session read or
 * written on replica B, erased on replica A. B refuses every read at once, drops the session's key and what it
 * holds of it when it hears the erasure's notice, and writes no snapshot of it afterwards. And the erasure's own
 * rules under load: with content stored plain, appends that race it are dropped too; a session whose rows carry
 * times later than the erasure still audits as erased, not as a mismatch.
 */
const T = Math.floor(Date.now() / 1000) - 100;
const SECRET = 'Xylophrast';

const erase = (server: App, sessionId: string) =>
  expectStatus(request(server).post(`/v1/sessions/${sessionId}/erasure`).set(bearer(KEYS.admin)).send({ reason: 'user request' }), 200);

describe('an erasure on replica A, seen from replica B', () => {
  let a: TestApp;
  let b: INestApplication;
  const bServer = () => b.getHttpServer() as App;
  beforeAll(async () => {
    a = await startTestApp({});
    await a.app.listen(0, '127.0.0.1');
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      CHRONICLE_RECOVERY_INTERVAL_MS: '0',
      DATABASE_URL: a.database.url,
      CHRONICLE_MASTER_KEY: TEST_MASTER_KEY,
    });
    b = await createApp({ config, databaseUrl: a.database.url, keys: parseApiKeys(TEST_KEYS_SPEC) });
    // On a real socket: its /live streams are read as a client reads them.
    await b.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await b?.close();
    await a.close();
  });

  it('B answers 410 to every read at once, time travel and event pages included, and drops the key without a read', async () => {
    const writer = ingestClient(() => a.server);
    const reader = ingestClient(bServer);
    await writer.startSession('b-reads', { title: `${SECRET}-title`, createdAt: T });
    await writer.recordMessages('b-reads', [{ role: 'user', content: `${SECRET}-question`, timestamp: T + 1 }, { role: 'assistant', content: `${SECRET}-answer`, timestamp: T + 2 }]);
    // B served the session before the erasure: it holds its state, its rendered transcript and its key.
    expect(JSON.stringify((await expectStatus(reader.read('/v1/sessions/b-reads/transcript'), 200)).body)).toContain(SECRET);
    const keyring = b.get<SessionKeyring>(KEYRING);
    expect(await keyring.keyFor('session-b-reads')).not.toBeNull();
    await erase(a.server, 'b-reads');
    for (const path of ['/events?after=0&limit=10', '/transcript?at=2', '/transcript', '']) {
      const answer = await reader.read(`/v1/sessions/b-reads${path}`);
      expect({ path, status: answer.status, leaks: JSON.stringify(answer.body).includes(SECRET) }).toEqual({ path, status: 410, leaks: false });
    }
    // The notice reaches B's live hub: the key it held goes, so nothing sealed with it opens there either.
    await pollUntil('B drops the destroyed key', () => keyring.keyFor('session-b-reads'), (key) => key === null, { timeoutMs: 3000 });
    const listed = await expectStatus(reader.read(`/v1/sessions?q=${SECRET}`), 200);
    expect(JSON.stringify(listed.body)).not.toContain(SECRET);
  });

  it('ends every open /live stream of the session with one `erased` event, on the replica that erased and on the other', async () => {
    const writer = ingestClient(() => a.server);
    await writer.startSession('watched', { title: `${SECRET}-title`, createdAt: T });
    await writer.recordMessages('watched', [{ role: 'user', content: `${SECRET}-question`, timestamp: T + 1 }]);
    const url = (server: INestApplication | TestApp['app'], query: string) =>
      `http://127.0.0.1:${(server.getHttpServer().address() as AddressInfo).port}/v1/sessions/watched/live${query}`;
    const streams = [openEventStream(url(a.app, '?patches=1'), bearer(KEYS.read)), openEventStream(url(b, ''), bearer(KEYS.read)), openEventStream(url(b, '?patches=1'), bearer(KEYS.read))];
    for (const stream of streams) await pollUntil('the first event', () => stream.events.length, (n) => n > 0, { timeoutMs: 3000 });
    await erase(a.server, 'watched');
    for (const stream of streams) {
      await pollUntil('the stream to end', () => stream.ended(), (ended) => ended, { timeoutMs: 5000 });
      const erased = dataOf<{ status: number; code: string }>(stream.events, 'erased');
      expect(erased).toEqual([expect.objectContaining({ status: 410, code: 'SESSION_ERASED' })]);
      expect(stream.events.at(-1)!.event).toBe('erased');
      // What came after the first event holds nothing of the content.
      expect(stream.events.slice(1).some((event) => event.data.includes(SECRET))).toBe(false);
    }
  });

  it('B, which wrote last, writes no snapshot of the session once A erased it', async () => {
    const writer = ingestClient(bServer);
    await writer.startSession('b-writes', { title: `${SECRET}-title`, createdAt: T });
    // B's idle snapshot of this state waits 2 s for the session to fall quiet.
    await writer.recordMessages('b-writes', [{ role: 'user', content: `${SECRET}-last-words`, timestamp: T + 1 }]);
    await erase(a.server, 'b-writes');
    await expectStatus(writer.read('/v1/sessions/b-writes'), 410);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await a.query(`SELECT version FROM session_snapshots WHERE stream_id = 'session-b-writes'`)).toEqual([]);
    const audit = await expectStatus(request(a.server).post('/v1/sessions/b-writes/audit').set(bearer(KEYS.admin)), 200);
    expect(audit.body).toMatchObject({ match: true, erased: true });
    expect(JSON.stringify(audit.body)).not.toContain(SECRET);
  });

  it('audits a session whose rows carry times later than its erasure as erased, not as a mismatch', async () => {
    const writer = ingestClient(() => a.server);
    await writer.startSession('clock-ahead', { createdAt: T });
    // An agent host whose clock runs an hour ahead: the row's time is content, gone with the key.
    await writer.recordMessages('clock-ahead', [{ role: 'user', content: 'hello', timestamp: T + 3600 }]);
    await erase(a.server, 'clock-ahead');
    await pollUntil('the index folded the erasure', async () => (await a.query<{ status: string }>(`SELECT status FROM session_index WHERE session_id = 'clock-ahead'`))[0]?.status, (status) => status === 'erased');
    const audit = await expectStatus(request(a.server).post('/v1/sessions/clock-ahead/audit').set(bearer(KEYS.admin)), 200);
    expect(audit.body).toMatchObject({ match: true, erased: true });
  });
});

describe('with CHRONICLE_ENCRYPTION=off, an erasure while writers still stream into the session', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ CHRONICLE_ENCRYPTION: 'off', CHRONICLE_PROJECTOR_INTERVAL_MS: '50' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('drops the content of every event written before it, lists each in SessionErased, and the audit verifies', async () => {
    const api = ingestClient(() => t.server);
    for (let round = 0; round < 4; round++) {
      const id = `racing-${round}`;
      await api.startSession(id, { createdAt: T });
      await api.recordMessages(id, [{ role: 'user', content: `${SECRET}-row`, timestamp: T }]);
      await api.submit(id, { runId: 'run-1', text: 'go', submittedAt: T + 1 });
      let seq = 1;
      let erased = false;
      const streamTokens = async () => {
        while (!erased) {
          const n = seq++;
          const answer = await request(t.server)
            .post(`/v1/sessions/${id}/runs/run-1/journal`)
            .set(bearer(KEYS.ingest))
            .send({ events: [{ seq: n, event: 'token', payload: { text: `${SECRET}-${n}` }, createdAt: T + 2 }] });
          if (answer.status === 410) return;
        }
      };
      const writers = [streamTokens(), streamTokens()];
      await new Promise((resolve) => setTimeout(resolve, 100));
      const erasure = await erase(t.server, id);
      erased = true;
      await Promise.all(writers);
      const [left] = await t.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE stream_id = $1 AND data::text LIKE $2`, [`session-${id}`, `%${SECRET}%`]);
      expect({ id, plainLeft: left.n }).toEqual({ id, plainLeft: 0 });
      expect(erasure.body.contentDropped).toBeGreaterThan(0);
      // The index row (a copy of the pending prompt, plain here) is rewritten by the projector's next pass.
      await pollUntil('the index folded the erasure', async () => (await t.query<{ status: string }>(`SELECT status FROM session_index WHERE session_id = $1`, [id]))[0]?.status, (status) => status === 'erased');
      const audit = await expectStatus(request(t.server).post(`/v1/sessions/${id}/audit`).set(bearer(KEYS.admin)), 200);
      expect(audit.body).toMatchObject({ match: true, erased: true, chain: { ok: true } });
      // Read back from its events (every replica dropped its cached state on the erasure's notice): 410, no content.
      const read = await request(t.server).get(`/v1/sessions/${id}/transcript?at=3`).set(bearer(KEYS.read));
      expect([read.status, read.body.code, JSON.stringify(read.body).includes(SECRET)]).toEqual([410, 'SESSION_ERASED', false]);
      expect((await request(t.server).get(`/v1/sessions/${id}`).set(bearer(KEYS.read))).status).toBe(410);
    }
  });
});
