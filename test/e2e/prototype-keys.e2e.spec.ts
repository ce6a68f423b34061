import { canonicalJson } from '#domain';
import { startTestApp, type TestApp } from '../support/app.js';
import { expectStatus, ingestClient } from '../support/ingest.js';

// Issue 27, item 6: a key named __proto__ or constructor is valid JSON that a tool result or a user's JSON can hold.
// It was refused as "malformed JSON"; it is data, stored and answered as it was sent, and pollutes nothing.
let t: TestApp;
beforeAll(async () => {
  // Content stored plain: the last case edits a stored value in the table, which sealed content hides (the edit
  // of a sealed event is test/e2e/continuous-audit.e2e.spec.ts's); the keys' round trip is the same either way.
  t = await startTestApp({ CHRONICLE_ENCRYPTION: 'off' });
});
afterAll(async () => {
  await t.close();
});

const api = ingestClient(() => t.server);
const { read } = api;

/** Both keys, as JSON text: an object literal in this file would set a prototype instead. */
const KEYS_TEXT = '"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}';
const withKeys = (fields = ''): Record<string, unknown> => JSON.parse(`{${KEYS_TEXT}${fields === '' ? '' : `,${fields}`}}`);
const PROTO_TEXT = '"__proto__":{"polluted":true}';
const CONSTRUCTOR_TEXT = '"constructor":{"prototype":{"polluted":true}}';
const count = (text: string, part: string) => text.split(part).length - 1;

/** Epoch seconds shortly before now: a recovery sweep may only decide as of the clock or later. */
const T = Math.floor(Date.now() / 1000) - 40;

const post = (path: string, body: object) => expectStatus(api.ingest(path).send(body), 200);

const prototypeNames = () => Object.getOwnPropertyNames(Object.prototype).sort();
const untouchedPrototype = prototypeNames();

describe('keys named __proto__ and constructor in free-form JSON', () => {
  const userRow = { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'tool_result', ...withKeys('"id":"t1"') }], timestamp: T + 10, meta: withKeys('"turnDuration":1') };
  const assistantRow = { role: 'assistant', content: 'ok', timestamp: T + 11, toolCalls: [{ id: 'c1', function: { name: 'f', arguments: withKeys() } }], attachments: [withKeys()] };
  const uiRows = [{ role: 'user', content: 'plain', timestamp: T + 5 }, { role: 'assistant', content: 'plain answer', timestamp: T + 6 }, userRow, assistantRow];
  // The agent store's copy of a UI row brings its meta to the transcript row (reference R13).
  const duplicateRow = { rowId: 2, role: 'assistant', content: 'plain answer', timestamp: T + 6, meta: withKeys() };
  const stateRows = [{ rowId: 1, role: 'user', content: 'from the agent store', timestamp: T + 9, meta: withKeys(), toolCalls: [withKeys()] }, duplicateRow];
  const attachments = [withKeys('"name":"a.json"')];
  const journal = [
    { seq: 1, event: 'token', payload: withKeys('"text":"partial answer"'), createdAt: T + 21 },
    { seq: 2, event: 'tool', payload: { name: 'search', preview: 'p', args: withKeys('"q":"x"') }, createdAt: T + 22 },
    { seq: 3, event: 'tool_complete', payload: { name: 'search', ...withKeys(), duration: 1 }, createdAt: T + 23 },
  ];

  beforeAll(async () => {
    await api.startSession('proto', { createdAt: 1 });
    await post('/v1/sessions/proto/messages', { rows: uiRows });
    await post('/v1/sessions/proto/state-rows', { rows: stateRows, observedAt: T + 12 });
    await post('/v1/sessions/proto/submissions', { runId: 'run-1', text: 'go on', attachments, submittedAt: T + 20 });
    await expectStatus(api.admin('/v1/recovery/sweep').send({ now: T + 20 + 31 }), 200);
    await api.postJournal('proto', 'run-1', journal);
    await post('/v1/sessions/proto/runs/run-1/journal', { events: [{ seq: 4, event: 'done', payload: withKeys(), createdAt: T + 24 }] });
  });

  it('are sent as own keys (the test sends what it means to)', () => {
    expect(JSON.stringify(userRow.meta)).toBe(`{${KEYS_TEXT},"turnDuration":1}`);
    expect(Object.getPrototypeOf(userRow.meta)).toBe(Object.prototype);
  });

  it('come back byte-identical in the journal read', async () => {
    const res = await expectStatus(read('/v1/sessions/proto/runs/run-1/journal'), 200);
    const payloads = res.body.events.map((event: { payload: unknown }) => canonicalJson(event.payload));
    expect(payloads).toEqual([...journal.map((event) => canonicalJson(event.payload)), canonicalJson(withKeys())]);
    expect([count(res.text, PROTO_TEXT), count(res.text, CONSTRUCTOR_TEXT)]).toEqual([4, 4]);
  });

  it('come back byte-identical in the events', async () => {
    const res = await expectStatus(read('/v1/sessions/proto/events?limit=100'), 200);
    const data = (type: string) => res.body.items.filter((event: { type: string }) => event.type === type).map((event: { data: unknown }) => event.data);
    const [messages] = data('MessagesRecorded') as { rows: unknown[] }[];
    expect(canonicalJson(messages.rows)).toBe(canonicalJson(uiRows));
    const [observed] = data('StateRowsObserved') as { rows: unknown[] }[];
    expect(canonicalJson(observed.rows)).toBe(canonicalJson(stateRows.map((row) => ({ ...row, active: true }))));
    const [submitted] = data('UserMessageSubmitted') as { attachments: unknown }[];
    expect(canonicalJson(submitted.attachments)).toBe(canonicalJson(attachments));
    const recorded = data('JournalEventRecorded') as { payload: unknown }[];
    expect(recorded.map((event) => canonicalJson(event.payload)).slice(0, 3)).toEqual(journal.map((event) => canonicalJson(event.payload)));
    expect([count(res.text, PROTO_TEXT), count(res.text, CONSTRUCTOR_TEXT)]).toEqual([12, 12]);
  });

  it('come back byte-identical in the transcript: rows, the agent-store duplicate\'s meta, the recovered prompt and tool card arguments', async () => {
    const res = await expectStatus(read('/v1/sessions/proto/transcript'), 200);
    const rows = res.body.messages as Record<string, unknown>[];
    const user = rows.find((row) => row['timestamp'] === T + 10)!;
    expect([canonicalJson(user['content']), canonicalJson(user['meta'])]).toEqual([canonicalJson(userRow.content), canonicalJson(userRow.meta)]);
    const assistant = rows.find((row) => row['timestamp'] === T + 11)!;
    expect([canonicalJson(assistant['toolCalls']), canonicalJson(assistant['attachments'])]).toEqual([
      canonicalJson(assistantRow.toolCalls),
      canonicalJson(assistantRow.attachments),
    ]);
    const backfilled = rows.find((row) => row['content'] === 'plain answer')!;
    expect(canonicalJson(backfilled['meta'])).toBe(canonicalJson(duplicateRow.meta));
    const recoveredPrompt = rows.find((row) => row['content'] === 'go on')!;
    expect(canonicalJson(recoveredPrompt['attachments'])).toBe(canonicalJson(attachments));
    expect(rows.some((row) => row['content'] === 'partial answer')).toBe(true);
    expect(res.body.toolCards).toEqual([expect.objectContaining({ name: 'search', recoveredRunId: 'run-1' })]);
    const args = res.body.toolCards[0].args;
    expect(Object.keys(args)).toEqual(['__proto__', 'constructor', 'q']);
    expect([args['__proto__'], args['constructor']]).toEqual(['{"polluted":true}', '{"prototype":{"polluted":true}}']);
  });

  it('are covered by the hash chain: the audit matches, and an edit of such a value breaks the chain there', async () => {
    const audit = await expectStatus(api.admin('/v1/sessions/proto/audit'), 200);
    expect(audit.body).toMatchObject({ match: true, chain: { ok: true, firstBrokenVersion: null } });
    const [edited] = await t.query<{ version: string }>(
      `UPDATE events SET data = replace(data::text, '"__proto__":{"polluted":true}', '"__proto__":{"polluted":false}')::json
       WHERE stream_id = 'session-proto' AND type = 'MessagesRecorded' RETURNING version`,
    );
    const version = Number(edited.version);
    const tampered = await expectStatus(api.admin('/v1/sessions/proto/audit'), 200);
    expect(tampered.body.chain).toEqual({ ok: false, firstBrokenVersion: version });
  });

  it('pollute nothing: no prototype gained a property', () => {
    expect(prototypeNames()).toEqual(untouchedPrototype);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
