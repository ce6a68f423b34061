import {
  evolve,
  evolveAll,
  initialSessionState,
  render,
  renderTranscript,
  streamingOutputOf,
  toSessionStreamId,
  type SessionEvent,
  type SessionState,
} from '../libs/domain/src/index.js';
import { InMemoryEventStore } from '../libs/event-store/src/index.js';
import { SessionViews, type SnapshotStore } from '../libs/read-models/src/index.js';
import { patchBody, type PatchLists } from '../apps/session-api/src/live/live-patch.js';

/**
 * The view after a streamed token (issue 10): a session of N committed messages with a pending turn, then
 * tokens one at a time, each appended and handed to `SessionViews` as the writer does (`remember`), then read
 * back as the display transcript (view + hash) and as the live patch since the version before. Measured on
 * the read models' own code over the in-memory store, so the figure is the service's work, not the database's.
 * Run by hand after a build: `node dist/bench/view.bench.js`; `npm run bench` calls `runViewBench`.
 */
const TOKENS = 300;
/** The long pending turn of `measureLongTurn`: about 40 kB of streamed text. */
export const LONG_TURN_TOKENS = 10_000;
const START = 1_780_000_000;

/** Snapshots never come due here; a read never misses the state cache. */
const noSnapshots = { latest: async () => null, save: async () => undefined } as unknown as SnapshotStore;

interface SessionFigures {
  /** Median time to produce the display transcript (view and hash) after one token, ms. */
  readonly viewMs: number;
  /** Median JSON size of the live patch for one token, bytes. */
  readonly patchBytes: number;
  /** Median time of a full render and hash of the same state, ms. */
  readonly fullRenderMs: number;
}

async function measure(messages: number): Promise<SessionFigures> {
  const store = new InMemoryEventStore();
  const views = new SessionViews(store, noSnapshots, { snapshotEvery: Number.MAX_SAFE_INTEGER, idleSnapshotMs: 0 });
  const sessionId = `view-${messages}`;
  const streamId = toSessionStreamId(sessionId);
  const setup: SessionEvent[] = [{ type: 'SessionStarted', data: { sessionId, title: 'bench', parentSessionId: null, createdAt: START } }];
  for (let at = 0; at < messages; at += 1000) {
    const rows = Array.from({ length: Math.min(1000, messages - at) }, (_, i) => ({
      role: (at + i) % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `message ${at + i}: ${'lorem ipsum dolor sit amet '.repeat(4)}`,
      timestamp: START + at + i,
    }));
    setup.push({ type: 'MessagesRecorded', data: { rows } });
  }
  setup.push({ type: 'UserMessageSubmitted', data: { runId: 'run', text: 'go on', attachments: [], source: null, submittedAt: START + messages } });
  let state: SessionState = evolveAll(initialSessionState(), setup);
  let { version } = await store.append(streamId, setup);
  views.remember(sessionId, version, state);
  await views.transcript(sessionId, 'display');
  const times: number[] = [];
  const sizes: number[] = [];
  for (let seq = 1; seq <= TOKENS; seq += 1) {
    const token: SessionEvent = { type: 'JournalEventRecorded', data: { runId: 'run', seq, event: 'token', payload: { text: ` w${seq}` }, createdAt: START + messages + seq } };
    state = evolve(state, token);
    ({ version } = await store.append(streamId, [token]));
    views.remember(sessionId, version, state);
    const started = performance.now();
    const read = await views.transcript(sessionId, 'display');
    times.push(performance.now() - started);
    if (read.version !== version) throw new Error(`read version ${read.version}, expected ${version}`);
    const delta = await views.transcriptSince(sessionId, 'display', version - 1);
    const patch = { version, hash: read.transcript.hash, since: version - 1, from: delta.from, messages: delta.messages, toolCards: read.transcript.toolCards, markers: read.view.markers, streaming: streamingOutputOf(read.state) };
    sizes.push(Buffer.byteLength(JSON.stringify(patch)));
  }
  // For reference: what every token cost before views were produced from the one before.
  const full: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const started = performance.now();
    renderTranscript(render(state), 'display');
    full.push(performance.now() - started);
  }
  return { viewMs: median(times), patchBytes: median(sizes), fullRenderMs: median(full) };
}

interface LongTurnFigures {
  /** Median time to produce the streaming output of a version after one token (`SessionViews.streaming`), ms. */
  readonly streamingMs: number;
  /** Median JSON size of the live patch for one token: whole (`patches=1`) and compact (`compact=1`). */
  readonly wholePatchBytes: number;
  readonly deltaPatchBytes: number;
  /** Median time of a pass over the turn's whole journal (`streamingOutputOf`: a fold from the turn's start, as on a cold cache), ms. */
  readonly wholePassMs: number;
}

/**
 * A pending turn already `turnTokens` tokens long (a 100-message session), then tokens one at a time as the
 * writer hands them over: the streaming output of each version (what every live patch carries), and the patch
 * for one token with that output whole (`patches=1`) and compact (`patches=1&compact=1`).
 */
async function measureLongTurn(turnTokens: number): Promise<LongTurnFigures> {
  const store = new InMemoryEventStore();
  const views = new SessionViews(store, noSnapshots, { snapshotEvery: Number.MAX_SAFE_INTEGER, idleSnapshotMs: 0 });
  const sessionId = `turn-${turnTokens}`;
  const streamId = toSessionStreamId(sessionId);
  const rows = Array.from({ length: 100 }, (_, i) => ({ role: i % 2 === 0 ? ('user' as const) : ('assistant' as const), content: `message ${i}`, timestamp: START + i }));
  const token = (seq: number): SessionEvent => ({ type: 'JournalEventRecorded', data: { runId: 'run', seq, event: 'token', payload: { text: ` w${seq % 1000}` }, createdAt: START + 1000 + seq } });
  const setup: SessionEvent[] = [
    { type: 'SessionStarted', data: { sessionId, title: 'bench', parentSessionId: null, createdAt: START } },
    { type: 'MessagesRecorded', data: { rows } },
    { type: 'UserMessageSubmitted', data: { runId: 'run', text: 'go on', attachments: [], source: null, submittedAt: START + 500 } },
    ...Array.from({ length: turnTokens }, (_, i) => token(i + 1)),
  ];
  let state: SessionState = evolveAll(initialSessionState(), setup);
  let { version } = await store.append(streamId, setup);
  views.remember(sessionId, version, state);
  let read = await views.transcript(sessionId, 'display');
  let held: PatchLists = { toolCards: read.transcript.toolCards, markers: read.view.markers, streaming: views.streaming(sessionId, version, read.state) };
  const times: number[] = [];
  const whole: number[] = [];
  const deltas: number[] = [];
  for (let seq = turnTokens + 1; seq <= turnTokens + TOKENS; seq += 1) {
    const event = token(seq);
    state = evolve(state, event);
    ({ version } = await store.append(streamId, [event]));
    views.remember(sessionId, version, state);
    read = await views.transcript(sessionId, 'display');
    const started = performance.now();
    const streaming = views.streaming(sessionId, version, read.state);
    times.push(performance.now() - started);
    const delta = await views.transcriptSince(sessionId, 'display', version - 1);
    // The patch as the live stream writes it (live.controller.ts), whole and compact.
    const head = { sessionId, view: 'display', version, hash: read.transcript.hash, since: version - 1, from: delta.from, messages: delta.messages };
    const next = { toolCards: read.transcript.toolCards, markers: read.view.markers, streaming };
    whole.push(Buffer.byteLength(JSON.stringify(patchBody(head, next, held, false))));
    deltas.push(Buffer.byteLength(JSON.stringify(patchBody(head, next, held, true))));
    held = next;
  }
  const passes: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const started = performance.now();
    streamingOutputOf(state);
    passes.push(performance.now() - started);
  }
  return { streamingMs: median(times), wholePatchBytes: median(whole), deltaPatchBytes: median(deltas), wholePassMs: median(passes) };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export interface ViewBenchResult {
  readonly shortMs: number;
  readonly longMs: number;
  readonly ratio: number;
  /** The larger of the two sessions' median patch sizes, bytes. */
  readonly patchBytes: number;
  /** A full render + hash of the 10,000-message session, for reference. */
  readonly fullRenderMs: number;
  /** A pending turn 10,000 tokens long (`measureLongTurn`). */
  readonly longTurn: LongTurnFigures;
}

export async function runViewBench(): Promise<ViewBenchResult> {
  await measure(100); // warm-up: JIT and caches
  const short = await measure(100);
  const long = await measure(10_000);
  await measureLongTurn(1_000); // warm-up
  const longTurn = await measureLongTurn(LONG_TURN_TOKENS);
  return {
    longTurn,
    shortMs: short.viewMs,
    longMs: long.viewMs,
    ratio: long.viewMs / short.viewMs,
    patchBytes: Math.max(short.patchBytes, long.patchBytes),
    fullRenderMs: long.fullRenderMs,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runViewBench();
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
