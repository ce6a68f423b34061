import request from 'supertest';
import { projectSession, renderTranscript } from '#domain';
import { bearer, KEYS, startTestApp, type TestApp } from '../../../test/support/app.js';
import { appendGolden, goldenNames, runIn } from './cli-test.fixture.js';

let t: TestApp;
const sessions: { sessionId: string; length: number; events: Awaited<ReturnType<typeof appendGolden>> }[] = [];

beforeAll(async () => {
  t = await startTestApp();
  for (const [i, name] of goldenNames().entries()) {
    const sessionId = `replay-${i}`;
    const events = await appendGolden(t.database.url, name, sessionId);
    sessions.push({ sessionId, length: events.length, events });
  }
});
afterAll(async () => {
  await t.close();
});

const api = async (sessionId: string, query: string) => {
  const res = await request(t.server).get(`/v1/sessions/${sessionId}/transcript?${query}`).set(bearer(KEYS.read));
  expect(res.status).toBe(200);
  return res.body;
};

describe('chronicle replay', () => {
  it('--json equals GET …/transcript?at= at every sampled version, in both views', async () => {
    for (const { sessionId, length } of sessions) {
      for (const at of [1, 2, Math.ceil(length / 3), Math.ceil(length / 2), length - 1, length, length + 10]) {
        for (const view of ['display', 'context']) {
          const cli = await runIn(t.database.url, ['replay', sessionId, '--at', String(at), '--view', view, '--json']);
          expect(cli.code).toBe(0);
          expect(JSON.parse(cli.stdout)).toEqual(await api(sessionId, `at=${at}&view=${view}`));
        }
      }
    }
  });

  it('--json is the pure projection of the first N events, hash included', async () => {
    const { sessionId, events, length } = sessions[0];
    const at = Math.ceil(length / 2);
    const cli = await runIn(t.database.url, ['replay', sessionId, `--at=${at}`, '--json']);
    const { messages, toolCards, hash } = renderTranscript(projectSession(events.slice(0, at)), 'display');
    expect(JSON.parse(cli.stdout)).toEqual({ sessionId, version: at, view: 'display', messages, toolCards, hash });
  });

  it('prints the transcript readably by default: header with hash, numbered messages, tool cards and markers', async () => {
    for (const { sessionId } of sessions) {
      const json = JSON.parse((await runIn(t.database.url, ['replay', sessionId, '--json'])).stdout);
      const cli = await runIn(t.database.url, ['replay', sessionId]);
      expect(cli.code).toBe(0);
      expect(cli.stdout).toContain(`Session ${sessionId} · version ${json.version} · display view · ${json.messages.length} messages`);
      expect(cli.stdout).toContain(`hash ${json.hash}`);
      expect(cli.stdout).toContain(`#${json.messages.length}  `);
      if (json.toolCards.length > 0) expect(cli.stdout).toContain('\nTool cards\n');
    }
    const interrupted = await Promise.all(sessions.map(async (s) => (await runIn(t.database.url, ['replay', s.sessionId])).stdout));
    expect(interrupted.some((text) => text.includes('-- marker: response interrupted') && text.includes('\nMarkers\n'))).toBe(true);
  });

  it('answers exit 2 naming the erasure for an erased session, at any version, and prints none of its content', async () => {
    const at = 1_790_000_000;
    const send = (path: string, body: object, key: string = KEYS.ingest) => request(t.server).post(path).set(bearer(key)).send(body);
    expect((await send('/v1/sessions', { sessionId: 'replay-erased', title: 'Quillfeather', createdAt: at })).status).toBe(201);
    expect((await send('/v1/sessions/replay-erased/messages', { rows: [{ role: 'user', content: 'Quillfeather question', timestamp: at + 1 }] })).status).toBe(200);
    expect((await send('/v1/sessions/replay-erased/erasure', { reason: 'user request' }, KEYS.admin)).status).toBe(200);
    for (const args of [[], ['--at', '2'], ['--json']]) {
      const run = await runIn(t.database.url, ['replay', 'replay-erased', ...args]);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^chronicle: session replay-erased was erased at \S+ \(user request\); its content is gone\n$/);
      expect(run.stderr).not.toContain('Quillfeather');
    }
  });

  it('answers exit 2 with a clear message for a session that was never started', async () => {
    expect(await runIn(t.database.url, ['replay', 'nobody'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'chronicle: session nobody was never started\n',
    });
  });
});
