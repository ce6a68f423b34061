import request from 'supertest';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';
import { ingestClient } from '../support/ingest.js';

// Regression of issue 12: free-form fields nested 10,000 levels deep crashed canonical JSON (500, defect 3).
// Its defect 4, a journal payload's top-level __proto__ key dropped, is kept as data since issue 27
// (prototype-keys.e2e.spec.ts).
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await ingestClient(() => t.server).startSession('deep', { createdAt: 1 });
});
afterAll(async () => {
  await t.close();
});

const DEPTH = 10_000;
const deepText = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;
const row = (field: string) => `{"role":"assistant","content":"x","timestamp":2,"${field}":${field === 'meta' ? deepText : `[${deepText}]`}}`;

const cases: [string, string, string, string][] = [
  ['journal payload', '/v1/sessions/deep/runs/r1/journal', `{"events":[{"seq":1,"event":"token","payload":${deepText},"createdAt":2}]}`, 'events.0.payload'],
  ['submission attachments', '/v1/sessions/deep/submissions', `{"runId":"r2","text":"t","attachments":[${deepText}],"submittedAt":2}`, 'attachments'],
  ['message row meta', '/v1/sessions/deep/messages', `{"rows":[${row('meta')}]}`, 'rows.0.meta'],
  ['message row toolCalls', '/v1/sessions/deep/messages', `{"rows":[${row('toolCalls')}]}`, 'rows.0.toolCalls'],
  ['state row attachments', '/v1/sessions/deep/state-rows', `{"observedAt":3,"rows":[{"rowId":1,${row('attachments').slice(1)}]}`, 'rows.0.attachments'],
  ['settle row content part', '/v1/sessions/deep/runs/r1/settle', `{"settledAt":3,"rows":[{"role":"user","content":[{"type":"x","v":${deepText}}]}]}`, 'rows.0.content.0'],
];

async function version(): Promise<number> {
  return (await request(t.server).get('/v1/sessions/deep').set(bearer(KEYS.read))).body.version;
}

describe('a free-form field nested 10,000 levels deep', () => {
  it.each(cases)('in a %s is a 400 naming the field and the limit, and stores nothing', async (_name, path, body, field) => {
    const before = await version();
    const res = await request(t.server).post(path).set(bearer(KEYS.ingest)).set('Content-Type', 'application/json').send(body);
    expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(res.body.errors).toContainEqual({ path: field, message: 'nested deeper than 64 levels (the limit for free-form JSON)' });
    expect(await version()).toBe(before);
  });
});
