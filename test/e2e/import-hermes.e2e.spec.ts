import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';
import { writeHermesScenarios } from '../support/hermes-scenarios.fixture.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ CHRONICLE_BODY_LIMIT_BYTES: String(4 * 1024 * 1024) });
});
afterAll(async () => {
  await t.close();
});

const layout = await writeHermesScenarios(mkdtempSync(join(tmpdir(), 'hermes-upload-')));
const upload = {
  sessions: readdirSync(layout.sessions, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map(({ name }) => ({ file: name, content: readFileSync(join(layout.sessions, name), 'utf8') })),
  journals: readdirSync(layout.journals).flatMap((session) =>
    readdirSync(join(layout.journals, session)).map((run) => ({ file: `${session}/${run}`, content: readFileSync(join(layout.journals, session, run), 'utf8') })),
  ),
  stateDb: { contentBase64: readFileSync(layout.stateDb).toString('base64') },
};
const post = (body: object, key: string = KEYS.admin) => request(t.server).post('/v1/import/hermes').set(bearer(key)).send(body);

describe('POST /v1/import/hermes', () => {
  it('needs the admin scope', async () => {
    const res = await post(upload, KEYS.ingest);
    expect([res.status, res.body.detail]).toEqual([403, 'This route needs the "admin" scope.']);
  });

  it('names every bad field of a malformed upload and imports nothing', async () => {
    const res = await post({ sessions: [{ file: 7, content: 'x' }], stateDb: { contentBase64: 'not base64!' }, extra: true });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['extra', 'sessions.0.file', 'stateDb.contentBase64']);
  });

  it('with dryRun answers the report and stores nothing', async () => {
    const res = await post({ ...upload, dryRun: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ dryRun: true, sessions: { read: 8, imported: 6, refused: 2 }, events: { total: 27 } });
    expect((await request(t.server).get('/v1/sessions/hx-plain').set(bearer(KEYS.read))).status).toBe(404);
  });

  it('imports the upload as the CLI imports the directory, answering the same report', async () => {
    const res = await post(upload);
    expect(res.status).toBe(200);
    expect(res.body.sessions).toEqual({ read: 8, imported: 6, unchanged: 0, refused: 2 });
    expect(res.body.events.byType).toEqual({ JournalEventRecorded: 7, MessagesRecorded: 7, SessionCompressed: 1, SessionStarted: 6, StateRowsObserved: 4, TranscriptTruncated: 1, UserMessageSubmitted: 1 });
    expect(res.body.skipped.map((s: { item: string }) => s.item)).toEqual(['bad id.json', 'broken.json', 'ghost/run-ghost.jsonl', 'hx-crash/run-crash.jsonl line 6', 'state.db session hx-cli-only']);
    const transcript = await request(t.server).get('/v1/sessions/hx-workspace/transcript?view=display').set(bearer(KEYS.read));
    expect(transcript.body.messages.map((m: { content: string }) => m.content)).toEqual([
      'Why does the build fail?', 'The lockfile is stale.', '[Workspace::v1: /srv/app]\nAnd how do I fix it?', 'Run npm install and commit the lockfile.',
    ]);
    const parent = await request(t.server).get('/v1/sessions/hx-parent').set(bearer(KEYS.read));
    expect(parent.body).toMatchObject({ archived: true });
  });

  it('appends nothing for the same upload again', async () => {
    const res = await post(upload);
    expect(res.body).toMatchObject({ sessions: { imported: 0, unchanged: 6 }, events: { total: 0, byType: {} } });
  });
});
