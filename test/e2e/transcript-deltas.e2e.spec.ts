import type { AddressInfo } from 'node:net';
import { chainRows, type MessageRow, type ToolCard, transcriptHashOf } from '#domain';

/** The README's transcript hash, as a client computes it. */
const transcriptHashOfBody = ({ messages, toolCards }: { messages: MessageRow[]; toolCards: ToolCard[] }) => transcriptHashOf(chainRows(messages), toolCards);
import { KEYS, startTestApp, type TestApp } from '../support/app.js';
import { ingestClient } from '../support/ingest.js';
import { pollUntil } from '../support/poll.js';
import { openEventStream } from '../support/server-sent-events.js';

/** Issue 10.2: `since` deltas, `streaming=1`, and `/live?patches=1` applied by a client. */

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
});
afterAll(() => t.close());

const api = ingestClient(() => t.server);
const { read } = api;
const T0 = 1_800_000_000;

async function startWithRows(sessionId: string, count: number): Promise<void> {
  await api.startSession(sessionId, { createdAt: T0 });
  for (let start = 0; start < count; start += 1000) {
    const rows = Array.from({ length: Math.min(1000, count - start) }, (_, i) => ({
      role: (start + i) % 2 === 0 ? 'user' : 'assistant',
      content: `message ${start + i}`,
      timestamp: T0 + start + i,
    }));
    await api.recordMessages(sessionId, rows);
  }
}

const token = (sessionId: string, runId: string, seq: number, text: string) =>
  api.postJournal(sessionId, runId, [{ seq, event: 'token', payload: { text }, createdAt: T0 + 50_000 + seq }]);

describe('GET …/transcript?since=', () => {
  it('answers only what changed since a version the client holds, and the whole transcript for one it cannot diff from', async () => {
    await startWithRows('delta-1', 3);
    const first = await read('/v1/sessions/delta-1/transcript');
    expect(first.status).toBe(200);
    await api.recordMessages('delta-1', [{ role: 'user', content: 'one more', timestamp: T0 + 10 }]);
    const delta = await read(`/v1/sessions/delta-1/transcript?since=${first.body.version}`);
    expect(delta.status).toBe(200);
    expect(delta.body).toMatchObject({ since: first.body.version, from: 3, version: first.body.version + 1 });
    expect(delta.body.messages).toEqual([expect.objectContaining({ content: 'one more' })]);
    const rebuilt = [...first.body.messages.slice(0, delta.body.from), ...delta.body.messages];
    expect(transcriptHashOfBody({ messages: rebuilt, toolCards: delta.body.toolCards })).toBe(delta.body.hash);
    expect(delta.body.markers).toEqual([]);

    const unknown = await read('/v1/sessions/delta-1/transcript?since=999');
    expect(unknown.body).toMatchObject({ from: 0, since: 999 });
    expect(unknown.body.messages).toHaveLength(4);
    // Each representation has its own strong tag, and answers 304 to it.
    expect(delta.headers.etag).not.toBe(first.headers.etag);
    const again = await read(`/v1/sessions/delta-1/transcript?since=${first.body.version}`).set('If-None-Match', delta.headers.etag);
    expect(again.status).toBe(304);
  });

  it('names a bad since or streaming value', async () => {
    const res = await read('/v1/sessions/delta-1/transcript?since=-1&streaming=yes');
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['query.since', 'query.streaming']));
  });
});

describe('GET …/transcript?streaming=1', () => {
  it('shows what the pending turn has streamed, outside the rows and the hash, until the turn settles', async () => {
    await startWithRows('stream-1', 2);
    await api.submit('stream-1', { runId: 'run-s', text: 'hello?', submittedAt: T0 + 100 });
    const before = await read('/v1/sessions/stream-1/transcript');
    await token('stream-1', 'run-s', 1, 'Hel');
    await token('stream-1', 'run-s', 2, 'lo there');
    const streamed = await read('/v1/sessions/stream-1/transcript?streaming=1');
    expect(streamed.body.streaming).toMatchObject({ runId: 'run-s', text: 'Hello there', reasoning: '', toolCards: [] });
    expect(streamed.body.hash).toBe(before.body.hash);
    expect(streamed.body.messages).toEqual(before.body.messages);
    const plain = await read('/v1/sessions/stream-1/transcript');
    expect(plain.body).not.toHaveProperty('streaming');
    await api.settle(
      'stream-1',
      'run-s',
      [
        { role: 'user', content: 'hello?', timestamp: T0 + 100 },
        { role: 'assistant', content: 'Hello there', timestamp: T0 + 101 },
      ],
      T0 + 102,
    );
    const settled = await read('/v1/sessions/stream-1/transcript?streaming=1');
    expect(settled.body.streaming).toBeNull();
    expect(settled.body.messages.at(-1)).toMatchObject({ content: 'Hello there' });
  });
});

interface Patch {
  version: number;
  hash: string;
  since: number;
  from: number;
  messages: MessageRow[];
  toolCards: ToolCard[];
  markers: unknown[];
  streaming: { text: string } | null;
}

function openPatches(path: string, lastEventId?: string) {
  const patches: Patch[] = [];
  const headers = { Authorization: `Bearer ${KEYS.read}`, ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) };
  const stream = openEventStream(`${base}${path}`, headers, (event) => {
    if (event.event === 'patch') patches.push(JSON.parse(event.data) as Patch);
  });
  return { ready: stream.ready.then(() => undefined), patches, close: stream.close };
}

describe('GET …/live?patches=1', () => {
  it('a client applying every patch of a streamed 10,000-message session holds the full transcript and its hash', async () => {
    await startWithRows('live-10k', 10_000);
    const live = openPatches('/v1/sessions/live-10k/live?patches=1');
    await live.ready;
    await pollUntil('the first patch of the 10,000-row session', () => live.patches.length >= 1, Boolean, { timeoutMs: 15_000 });
    let rows: MessageRow[] = [];
    let applied = 0;
    const apply = () => {
      for (; applied < live.patches.length; applied += 1) {
        const patch = live.patches[applied]!;
        rows = [...rows.slice(0, patch.from), ...patch.messages];
        expect(transcriptHashOfBody({ messages: rows, toolCards: patch.toolCards })).toBe(patch.hash);
      }
    };
    expect(live.patches[0]).toMatchObject({ from: 0 });
    await api.submit('live-10k', { runId: 'run-l', text: 'go on', submittedAt: T0 + 20_000 });
    for (let seq = 1; seq <= 20; seq += 1) await token('live-10k', 'run-l', seq, ` word${seq}`);
    await api.settle('live-10k', 'run-l', [{ role: 'user', content: 'go on', timestamp: T0 + 20_000 }, { role: 'assistant', content: 'done streaming', timestamp: T0 + 20_001 }], T0 + 20_002);
    const final = await read('/v1/sessions/live-10k/transcript');
    await pollUntil(`the patch of version ${final.body.version}`, () => live.patches.at(-1)?.version === final.body.version, Boolean, { timeoutMs: 15_000 });
    live.close();
    apply();
    expect(rows).toHaveLength(final.body.messages.length);
    expect(live.patches.at(-1)!.hash).toBe(final.body.hash);
    // After the first, a patch for one token carries no rows: small whatever the session's length.
    const tokenPatches = live.patches.filter((patch) => patch.streaming !== null && patch.messages.length === 0);
    expect(tokenPatches.length).toBeGreaterThan(0);
    for (const patch of tokenPatches) expect(JSON.stringify(patch).length).toBeLessThan(2048);
    expect(tokenPatches.at(-1)!.streaming!.text).toContain('word');
  }, 60_000);

  it('with compact=1 a token of a long turn sends its own text, not the turn\'s nor the session\'s lists, and the patches rebuild it all', async () => {
    await startWithRows('live-long-turn', 2);
    // An interrupted turn whose journal holds a tool call: the session has a marker and a tool card.
    await api.submit('live-long-turn', { runId: 'run-tool', text: 'look', submittedAt: T0 + 29_000 });
    expect((await api.admin('/v1/recovery/sweep').send({ now: T0 + 29_031 })).status).toBe(200);
    await api.postJournal('live-long-turn', 'run-tool', [{ seq: 1, event: 'tool', payload: { name: 'grep', args: { q: 'x' } }, createdAt: T0 + 29_001 }]);
    await api.submit('live-long-turn', { runId: 'run-long', text: 'write a lot', submittedAt: T0 + 30_000 });
    // The turn is 2,000 tokens long before the streams open: whole, each patch would carry all of it again.
    const words = Array.from({ length: 2_000 }, (_, i) => ` word${i}`);
    for (let at = 0; at < words.length; at += 500) {
      await api.postJournal('live-long-turn', 'run-long', words.slice(at, at + 500).map((text, i) => ({ seq: at + i + 1, event: 'token', payload: { text }, createdAt: T0 + 50_000 + at + i })));
    }
    const deltas = openPatches('/v1/sessions/live-long-turn/live?patches=1&compact=1');
    const whole = openPatches('/v1/sessions/live-long-turn/live?patches=1');
    await Promise.all([deltas.ready, whole.ready]);
    await pollUntil('the first patch of each stream', () => deltas.patches.length >= 1 && whole.patches.length >= 1);
    for (let seq = 2_001; seq <= 2_040; seq += 1) await token('live-long-turn', 'run-long', seq, ` more${seq}`);
    // Reasoning and a delivery out of order (seq 2,100 before 2,050): the text changes inside, not only at its end.
    await api.postJournal('live-long-turn', 'run-long', [{ seq: 2_100, event: 'reasoning', payload: { text: 'thinking' }, createdAt: T0 + 60_000 }]);
    await api.postJournal('live-long-turn', 'run-long', [{ seq: 2_050, event: 'token', payload: { text: ' late' }, createdAt: T0 + 60_001 }]);
    const final = await read('/v1/sessions/live-long-turn/transcript?streaming=1');
    const last = (live: typeof deltas) => live.patches.at(-1)?.version === final.body.version;
    await pollUntil('both streams at the last version', () => last(deltas) && last(whole), Boolean, { timeoutMs: 15_000 });
    deltas.close();
    whole.close();

    type Streaming = { runId: string; text: string; reasoning: string; toolCards: unknown[] };
    type Delta = { runId: string; textFrom: number; text: string; reasoningFrom: number; reasoning: string; toolCards?: unknown[] };
    let held: Streaming | null = null;
    let lists: { toolCards: ToolCard[]; markers: unknown[] } | null = null;
    let rows: MessageRow[] = [];
    for (const patch of deltas.patches as unknown as (Omit<Patch, 'toolCards' | 'markers'> & { toolCards?: ToolCard[]; markers?: unknown[]; streamingDelta: Delta | null })[]) {
      expect(patch).not.toHaveProperty('streaming');
      // The lists when they changed, else those held: with the rows they hash to the patch's hash.
      lists = { toolCards: patch.toolCards ?? lists!.toolCards, markers: patch.markers ?? lists!.markers };
      rows = [...rows.slice(0, patch.from), ...patch.messages];
      expect(transcriptHashOfBody({ messages: rows, toolCards: lists.toolCards })).toBe(patch.hash);
      // The contract's rule, written out: keep `textFrom` code units and append `text`, the same for the reasoning.
      const delta = patch.streamingDelta!;
      const base: Streaming = held ?? { runId: delta.runId, text: '', reasoning: '', toolCards: [] };
      expect(delta.runId).toBe(base.runId);
      held = { runId: delta.runId, text: base.text.slice(0, delta.textFrom) + delta.text, reasoning: base.reasoning.slice(0, delta.reasoningFrom) + delta.reasoning, toolCards: delta.toolCards ?? base.toolCards };
      // Each version's output is the one the whole form sent for it.
      const same = whole.patches.find((other) => other.version === patch.version);
      if (same) expect(held).toEqual(same.streaming);
    }
    expect(held).toEqual(final.body.streaming);
    expect(lists!.toolCards).toEqual(final.body.toolCards);
    expect(final.body.toolCards).toEqual([expect.objectContaining({ name: 'grep', recoveredRunId: 'run-tool' })]);
    expect(lists!.markers).toEqual([expect.objectContaining({ runId: 'run-tool' })]);
    expect(final.body.streaming.text).toContain('more2040 late');
    // The first delta of the stream is whole; a token's after it is its own text, whatever the turn's length.
    const [first, ...rest] = deltas.patches as unknown as { streamingDelta: Delta }[];
    expect(first!.streamingDelta).toMatchObject({ textFrom: 0, reasoningFrom: 0 });
    expect(first!.streamingDelta.text.length).toBeGreaterThan(10_000);
    const tokenDeltas = rest.filter((patch) => /^ more\d+$/.test(patch.streamingDelta.text));
    expect(tokenDeltas.length).toBeGreaterThan(30);
    for (const patch of tokenDeltas) {
      expect(JSON.stringify(patch).length).toBeLessThan(1024);
      expect(patch).not.toHaveProperty('toolCards');
      expect(patch).not.toHaveProperty('markers');
    }
    expect(Math.max(...whole.patches.slice(1).map((patch) => JSON.stringify(patch).length))).toBeGreaterThan(10_000);

    // A compact stream resumed from a version (another replica, a reconnect): its first patch is the delta from that
    // version with every list and the streaming output whole, whatever the stream before it had sent.
    const resumed = openPatches('/v1/sessions/live-long-turn/live?patches=1&compact=1', String(final.body.version - 1));
    await resumed.ready;
    await pollUntil('the resumed stream\'s first patch', () => resumed.patches.length >= 1);
    resumed.close();
    const [again] = resumed.patches as unknown as (Patch & { streamingDelta: Delta })[];
    expect(again).toMatchObject({ since: final.body.version - 1, version: final.body.version, toolCards: final.body.toolCards, markers: lists!.markers });
    expect(again!.streamingDelta).toEqual({ ...final.body.streaming, textFrom: 0, reasoningFrom: 0 });
  }, 60_000);

  it('resumes from Last-Event-ID with the delta from that version', async () => {
    await startWithRows('live-resume', 5);
    const held = await read('/v1/sessions/live-resume/transcript');
    await api.recordMessages('live-resume', [{ role: 'user', content: 'later', timestamp: T0 + 99 }]);
    const live = openPatches('/v1/sessions/live-resume/live?patches=1', String(held.body.version));
    await live.ready;
    await pollUntil('the patch from the held version', () => live.patches.length >= 1);
    live.close();
    expect(live.patches[0]).toMatchObject({ sessionId: 'live-resume', view: 'display', since: held.body.version, from: 5, version: held.body.version + 1 });
    expect(live.patches[0]!.messages).toEqual([expect.objectContaining({ content: 'later' })]);
  });
});
