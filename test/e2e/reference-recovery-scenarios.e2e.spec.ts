import request from 'supertest';
import { toSessionStreamId } from '#domain';
import type { EventStore } from '#event-store';
import { LivenessRegistry } from '#recovery';
import { EVENT_STORE } from '../../apps/session-api/src/database/database.module.js';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';
import { expectStatus, ingestClient } from '../support/ingest.js';

/**
 * The recovery scenarios of the reference regression file (seed_test_session_lost_response_regression) over
 * HTTP: UI rows, submissions, journal events and agent-store rows go in through the ingestion routes, the
 * recovery supervisor decides on POST /v1/recovery/sweep, and the transcript must come out as the reference
 * pins. Where the reference has locks, retries and save guards, Chronicle has appends at an expected version:
 * see test/reference-scenarios.md. Every sweep examines every session of this app, so each test asserts on
 * its own session only.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

type Row = Record<string, unknown>;
type Message = { role: string; content: unknown; timestamp?: number; attachments?: unknown[]; recoveredFromRunJournal?: boolean; type?: string; error?: boolean };

const clock = () => Math.floor(Date.now() / 1000);
const api = ingestClient(() => t.server);
const { ingest, read, eventTypes } = api;
const sweep = (body: object = {}) => api.admin('/v1/recovery/sweep').send(body);
const ok = (res: request.Test, status = 200) => expectStatus(res, status);

interface Turn {
  readonly sessionId: string;
  readonly runId: string;
  readonly prompt?: string;
  readonly submittedAt: number;
  readonly uiRows?: Row[];
  readonly attachments?: unknown[];
}

/** A session with committed UI rows and a pending turn. */
async function pendingTurn({ sessionId, runId, prompt = 'new request', submittedAt, uiRows = [], attachments = [] }: Turn): Promise<void> {
  await api.startSession(sessionId, { createdAt: submittedAt - 100 });
  if (uiRows.length > 0) await api.recordMessages(sessionId, uiRows);
  await api.submit(sessionId, { runId, text: prompt, attachments, submittedAt });
}

const observeRows = (sessionId: string, rows: Row[], observedAt: number) =>
  api.observeStateRows(sessionId, rows.map((row, i) => ({ ...row, rowId: i + 1 })), observedAt);

const transcript = async (sessionId: string, view: 'display' | 'context' = 'display') =>
  (await ok(read(`/v1/sessions/${sessionId}/transcript?view=${view}`))).body as { version: number; hash: string; messages: Message[] };

const contents = (messages: Message[]) => messages.map((m) => m.content);
const markers = async (sessionId: string) => (await ok(read(`/v1/sessions/${sessionId}/markers`))).body.items as { status: string; content: string }[];
const summary = async (sessionId: string) => (await ok(read(`/v1/sessions/${sessionId}`))).body;
const DECISIONS = new Set(['TurnInterrupted', 'TurnRecoveredFromAgentStore']);
const decided = async (sessionId: string) => DECISIONS.has((await eventTypes(sessionId)).at(-1) ?? '');

/**
 * Sweeps until `done()` holds, at most 5 times. Written when one sweep could miss a session that the async index
 * projected at that very moment (defect D5 in test/reference-scenarios.md, now fixed); kept as a harmless margin.
 */
async function sweepUntil(done: () => Promise<boolean> | boolean, body: object = {}): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    await ok(sweep(body));
    if (await done()) return;
  }
}

/** Sweeps a few times, for a test that expects a session to be left alone. */
async function sweepSeveral(body: object = {}): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt += 1) await ok(sweep(body));
}

/** Old UI rows and an agent store that already holds the new turn up to its latest live progress (reference #5053). */
function aheadOfUi(submittedAt: number) {
  const uiRows = [
    { role: 'user', content: 'old question', timestamp: submittedAt - 2 },
    { role: 'assistant', content: 'old answer', timestamp: submittedAt - 1 },
  ];
  const agentRows = [
    ...uiRows,
    { role: 'user', content: 'new request', timestamp: submittedAt },
    { role: 'assistant', content: 'visible text that disappeared', timestamp: submittedAt + 1 },
    { role: 'tool', content: 'tool result', timestamp: submittedAt + 2 },
    { role: 'assistant', content: 'latest live progress', timestamp: submittedAt + 3 },
  ];
  return { uiRows, agentRows };
}

describe('reads of a session whose marker waits for its journal (reference: lazy retry under a try-lock)', () => {
  it('never write: concurrent reads all answer the same version and hash, and the stream does not move', async () => {
    const submittedAt = clock() - 120;
    await pendingTurn({ sessionId: 'rr-reads', runId: 'rr-reads-run', submittedAt });
    await sweepUntil(() => decided('rr-reads'));
    expect((await markers('rr-reads')).map((m) => m.status)).toEqual(['pending_journal']);
    const before = await eventTypes('rr-reads');
    const reads = await Promise.all(Array.from({ length: 8 }, () => transcript('rr-reads')));
    expect(new Set(reads.map((r) => `${r.version}:${r.hash}`)).size).toBe(1);
    expect(await eventTypes('rr-reads')).toEqual(before);
  });
});

describe('an agent store ahead of a dead turn (reference: state.db self-heal)', () => {
  it.each([
    ['as typed', 'rr-heal', 'new request'],
    ['under a legacy workspace tag holding a Windows path (no `]` inside, §2.1 R2)', 'rr-heal-legacy', '[Workspace: C:\\Users\\dev\\]\nnew request'],
  ])('is adopted by the sweep, its prompt stored %s: the transcript and the context gain the agent rows, the pending turn clears, no marker', async (_stored, sessionId, prompt) => {
    const submittedAt = clock() - 120;
    const ahead = aheadOfUi(submittedAt);
    const agentRows = ahead.agentRows.map((row) => (row.content === 'new request' ? { ...row, content: prompt } : row));
    await pendingTurn({ sessionId, runId: `${sessionId}-run`, submittedAt, uiRows: ahead.uiRows });
    await observeRows(sessionId, agentRows, submittedAt + 4);
    expect(contents((await transcript(sessionId)).messages)).toEqual(['old question', 'old answer', 'new request']);

    await sweepUntil(() => decided(sessionId));
    expect((await eventTypes(sessionId)).at(-1)).toBe('TurnRecoveredFromAgentStore');
    expect(contents((await transcript(sessionId)).messages)).toEqual(agentRows.map((row) => row.content));
    expect((await transcript(sessionId, 'context')).messages.at(-1)?.content).toBe('latest live progress');
    expect((await summary(sessionId)).pendingTurn).toBeNull();
    expect(await markers(sessionId)).toEqual([]);
  });
});

describe('a turn whose live stream is still open (reference: a live worker owns its write-back)', () => {
  it('is left alone although the agent store is ahead; once the stream closes the sweep adopts the agent rows', async () => {
    const submittedAt = clock() - 600;
    const { uiRows, agentRows } = aheadOfUi(submittedAt);
    await pendingTurn({ sessionId: 'rr-live', runId: 'rr-live-run', submittedAt, uiRows });
    await observeRows('rr-live', agentRows, submittedAt + 4);
    await ok(request(t.server).put('/v1/runs/rr-live-run/stream').set(bearer(KEYS.ingest)).send({ sessionId: 'rr-live' }));
    const before = await eventTypes('rr-live');

    await sweepSeveral();
    expect(await eventTypes('rr-live')).toEqual(before);
    expect(contents((await transcript('rr-live')).messages)).toEqual(['old question', 'old answer', 'new request']);
    expect((await summary('rr-live')).pendingTurn).toMatchObject({ runId: 'rr-live-run', text: 'new request' });

    await ok(request(t.server).delete('/v1/runs/rr-live-run/stream').set(bearer(KEYS.ingest)));
    await sweepUntil(() => decided('rr-live'));
    expect((await eventTypes('rr-live')).at(-1)).toBe('TurnRecoveredFromAgentStore');
    expect((await transcript('rr-live')).messages.at(-1)?.content).toBe('latest live progress');
  });
});

describe('a turn inside the 30 s registration window (reference: recent pending_started_at)', () => {
  it('is not touched even though the agent store is ahead; at 30 s it is decided', async () => {
    const submittedAt = clock();
    const { uiRows, agentRows } = aheadOfUi(submittedAt);
    await pendingTurn({ sessionId: 'rr-grace', runId: 'rr-grace-run', submittedAt, uiRows });
    await observeRows('rr-grace', agentRows.slice(0, 4), submittedAt + 1);
    const before = await eventTypes('rr-grace');

    await sweepSeveral({ now: submittedAt + 10 });
    expect(await eventTypes('rr-grace')).toEqual(before);
    expect((await summary('rr-grace')).pendingTurn).toMatchObject({ runId: 'rr-grace-run' });
    expect(contents((await transcript('rr-grace')).messages)).toEqual(['old question', 'old answer', 'new request']);

    await sweepUntil(() => decided('rr-grace'), { now: submittedAt + 31 });
    expect((await eventTypes('rr-grace')).at(-1)).toBe('TurnRecoveredFromAgentStore');
  });
});

describe('a decision whose append fails (reference: the sync save raises)', () => {
  it('changes nothing — pending turn, attachments, transcript — and the next sweep decides', async () => {
    const submittedAt = clock() - 120;
    const attachment = { name: 'sample.png', mime: 'image/png', isImage: true };
    await pendingTurn({
      sessionId: 'rr-fail',
      runId: 'rr-fail-run',
      submittedAt,
      attachments: [attachment],
      uiRows: [
        { role: 'user', content: 'old question', timestamp: submittedAt - 2 },
        { role: 'assistant', content: 'old answer', timestamp: submittedAt - 1 },
      ],
    });
    const before = { events: await eventTypes('rr-fail'), transcript: await transcript('rr-fail') };
    // The failure is put on the store behind the app's instrumentation (which forwards to the store's own append).
    const store = t.app.get<symbol, EventStore>(EVENT_STORE);
    const storeAppend = (Object.getPrototypeOf(store) as EventStore).append;
    let failures = 0;
    store.append = async function (this: EventStore, streamId, events, options) {
      if (streamId === toSessionStreamId('rr-fail')) {
        failures += 1;
        throw new Error('disk full');
      }
      return storeAppend.call(this, streamId, events, options);
    };
    try {
      await sweepUntil(() => failures > 0);
    } finally {
      delete (store as { append?: unknown }).append;
    }
    expect(failures).toBeGreaterThanOrEqual(1);
    expect(await eventTypes('rr-fail')).toEqual(before.events);
    expect(await transcript('rr-fail')).toEqual(before.transcript);
    expect((await summary('rr-fail')).pendingTurn).toMatchObject({ runId: 'rr-fail-run', text: 'new request', attachments: [attachment] });

    await sweepUntil(() => decided('rr-fail'));
    expect((await eventTypes('rr-fail')).at(-1)).toBe('TurnInterrupted');
  });
});

describe('a decision made on a version that another writer has moved on (reference: under-lock revalidation)', () => {
  /** Runs `write` while the supervisor, having folded the session, is reading the liveness facts of its run. */
  async function sweepRacing(runId: string, write: () => Promise<unknown>): Promise<number> {
    const registry = t.app.get(LivenessRegistry);
    const facts = registry.facts.bind(registry);
    let calls = 0;
    registry.facts = async (id: string) => {
      if (id === runId) {
        calls += 1;
        if (calls === 1) await write();
      }
      return facts(id);
    };
    try {
      await sweepUntil(() => calls > 0);
    } finally {
      registry.facts = facts;
    }
    return calls;
  }

  it('is refused when the worker settles the turn meanwhile; the re-decision finds nothing to do', async () => {
    const submittedAt = clock() - 120;
    await pendingTurn({ sessionId: 'rr-race-settle', runId: 'rr-race-settle-run', submittedAt });
    await sweepRacing('rr-race-settle-run', () =>
      ok(
        ingest('/v1/sessions/rr-race-settle/runs/rr-race-settle-run/settle').send({
          rows: [
            { role: 'user', content: 'new request', timestamp: submittedAt },
            { role: 'assistant', content: 'the worker finished', timestamp: submittedAt + 5 },
          ],
          settledAt: submittedAt + 6,
        }),
      ),
    );
    expect(await eventTypes('rr-race-settle')).toEqual(['SessionStarted', 'UserMessageSubmitted', 'TurnSettled']);
    expect(contents((await transcript('rr-race-settle')).messages)).toEqual(['new request', 'the worker finished']);
    expect(await markers('rr-race-settle')).toEqual([]);
  });

  it('is refused when the session is compressed meanwhile; the re-decision skips the archived parent', async () => {
    const submittedAt = clock() - 120;
    await pendingTurn({ sessionId: 'rr-race-compress', runId: 'rr-race-compress-run', submittedAt });
    const calls = await sweepRacing('rr-race-compress-run', () =>
      ok(ingest('/v1/sessions/rr-race-compress/compress').send({ childSessionId: 'rr-race-compress-child', at: submittedAt + 5 })),
    );
    expect(calls).toBe(2);
    expect(await eventTypes('rr-race-compress')).toEqual(['SessionStarted', 'UserMessageSubmitted', 'SessionCompressed']);
    expect(await markers('rr-race-compress')).toEqual([]);
  });

  it('is re-decided on the new version when a journal event lands meanwhile, and the marker shows that output', async () => {
    const submittedAt = clock() - 120;
    await pendingTurn({ sessionId: 'rr-race-journal', runId: 'rr-race-journal-run', submittedAt });
    const calls = await sweepRacing('rr-race-journal-run', () =>
      ok(
        ingest('/v1/sessions/rr-race-journal/runs/rr-race-journal-run/journal').send({
          events: [{ seq: 1, event: 'token', payload: { text: 'Half of the answer' }, createdAt: submittedAt + 3 }],
        }),
      ),
    );
    expect(calls).toBe(2);
    expect(await eventTypes('rr-race-journal')).toEqual(['SessionStarted', 'UserMessageSubmitted', 'JournalEventRecorded', 'TurnInterrupted']);
    expect((await markers('rr-race-journal')).map((m) => m.status)).toEqual(['recovered']);
  });
});

describe('a pending image turn', () => {
  const prompt = 'Describe the attached image';
  const attachment = { name: 'sample.png', mime: 'image/png', isImage: true };
  const imagePart = { type: 'image_url', imageUrl: { url: 'data:image/png;base64,YWJj' } };
  const note = 'Agent-only recall note';
  const submittedRows = (messages: Message[]) => messages.filter((m) => m.role === 'user' && m.content === prompt);

  async function imageTurn(sessionId: string, agentPrompt: Row, extraAgentRows: Row[]) {
    const submittedAt = clock() - 120;
    const uiRows = [
      { role: 'user', content: 'old question', timestamp: submittedAt - 2 },
      { role: 'assistant', content: 'old answer', timestamp: submittedAt - 1 },
    ];
    await pendingTurn({ sessionId, runId: `${sessionId}-run`, prompt, submittedAt, uiRows, attachments: [attachment] });
    const agentRows = [...uiRows, { ...agentPrompt, timestamp: submittedAt }, ...extraAgentRows.map((row, i) => ({ ...row, timestamp: submittedAt + 1 + i }))];
    await observeRows(sessionId, agentRows, submittedAt + 5);
    return submittedAt;
  }

  // D2 (fixed): an agent row whose FIRST text part is the prompt, stamped at the submission, with an answer after
  // it, is the pending prompt even with an agent-only text part after the image; the sweep adopts the agent store.
  it('whose agent row (text, image, agent-only note) and answer are stored is recovered from the agent store: the answer ends the display, the note stays in the context', async () => {
    const agentPrompt = { role: 'user', content: [{ type: 'text', text: prompt }, imagePart, { type: 'text', text: note }] };
    const submittedAt = await imageTurn('rr-image-proven', agentPrompt, [{ role: 'assistant', content: 'recovered assistant tail' }]);
    await sweepUntil(() => decided('rr-image-proven'));

    expect((await eventTypes('rr-image-proven')).at(-1)).toBe('TurnRecoveredFromAgentStore');
    const display = (await transcript('rr-image-proven')).messages;
    expect(display.at(-1)).toMatchObject({ role: 'assistant', content: 'recovered assistant tail' });
    const context = (await transcript('rr-image-proven', 'context')).messages.filter((m) => m.role === 'user' && m.timestamp === submittedAt);
    expect(context).toHaveLength(1);
    expect(JSON.stringify(context[0]?.content)).toContain(note);
    expect(await markers('rr-image-proven')).toEqual([]);
  });

  // D3 (fixed, projection): the agent's multipart row mirrors the submitted prompt (prompt-mirror.ts): the display
  // keeps one submitted row with the prompt, its time and attachments; the note stays in the context only.
  it('whose agent row (text, image, agent-only note) and answer are stored keeps one submitted row with attachments in the display, never the note (D3)', async () => {
    const agentPrompt = { role: 'user', content: [{ type: 'text', text: prompt }, imagePart, { type: 'text', text: note }] };
    const submittedAt = await imageTurn('rr-image-proven-display', agentPrompt, [{ role: 'assistant', content: 'recovered assistant tail' }]);
    await sweepUntil(() => decided('rr-image-proven-display'));

    expect((await eventTypes('rr-image-proven-display')).at(-1)).toBe('TurnRecoveredFromAgentStore');
    const display = (await transcript('rr-image-proven-display')).messages;
    expect(submittedRows(display)).toEqual([expect.objectContaining({ timestamp: submittedAt, attachments: [attachment] })]);
    expect(JSON.stringify(display)).not.toContain(note);
  });

  it('whose agent store holds only the image prompt row is interrupted and recovered from its journal, under one recovered marker', async () => {
    const agentPrompt = { role: 'user', content: [{ type: 'text', text: prompt }, imagePart] };
    const submittedAt = await imageTurn('rr-image-alone', agentPrompt, []);
    await ok(
      ingest('/v1/sessions/rr-image-alone/runs/rr-image-alone-run/journal').send({
        events: [{ seq: 1, event: 'token', payload: { text: 'Recovered partial text.' }, createdAt: submittedAt + 3 }],
      }),
    );
    await sweepUntil(() => decided('rr-image-alone'));

    expect((await eventTypes('rr-image-alone')).at(-1)).toBe('TurnInterrupted');
    const display = (await transcript('rr-image-alone')).messages;
    expect(display.some((m) => m.recoveredFromRunJournal === true && String(m.content).includes('Recovered partial text.'))).toBe(true);
    const markerRows = display.filter((m) => m.type === 'interrupted' && m.error === true);
    expect(markerRows).toHaveLength(1);
    expect(markerRows[0]?.content).toContain('**Response interrupted.**');
    expect(markerRows[0]?.content).toContain('partial output above was recovered');
    expect((await markers('rr-image-alone')).map((m) => m.status)).toEqual(['recovered']);
  });

  // D4 (fixed, projection): the agent's image row mirrors the recovered prompt row (prompt-mirror.ts): the display
  // shows the recovered row with its attachments, not the agent's multipart row.
  it('whose agent store holds only the image prompt row keeps one submitted row with its attachments in the display', async () => {
    const agentPrompt = { role: 'user', content: [{ type: 'text', text: prompt }, imagePart] };
    const submittedAt = await imageTurn('rr-image-alone-2', agentPrompt, []);
    await sweepUntil(() => decided('rr-image-alone-2'));
    expect((await eventTypes('rr-image-alone-2')).at(-1)).toBe('TurnInterrupted');
    expect(submittedRows((await transcript('rr-image-alone-2')).messages)).toEqual([
      expect.objectContaining({ timestamp: submittedAt, attachments: [attachment] }),
    ]);
  });
});
