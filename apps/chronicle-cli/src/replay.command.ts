import {
  type ErasureRecord,
  evolveAll,
  initialSessionState,
  type Marker,
  render,
  renderTranscript,
  type SessionState,
  toSessionStreamId,
} from '#domain';
import type { EventStore } from '#event-store';
import { toDomainEvent } from '#read-models';
import { CliError, EXIT, type CliIo, write } from './cli-io.js';
import type { CliDatabase } from './database.connector.js';
import { renderReadable, type TranscriptResponse } from './transcript.renderer.js';

export interface ReplayOptions {
  readonly sessionId: string;
  readonly at?: number;
  readonly view: 'display' | 'context';
  readonly json: boolean;
}

export interface Replayed {
  readonly transcript: TranscriptResponse;
  readonly markers: readonly Marker[];
  /** The session's erasure (its last event, whatever `at` asked for): its content is gone, as the API's 410 says. */
  readonly erased: ErasureRecord | null;
}

const PAGE = 1000;

/**
 * The session folded from its events alone (no snapshot, no cache: what the log says), up to `at` or the
 * head. `at` past the head answers the head, as `GET …/transcript?at=` does. Null when never started.
 */
export async function replaySession(
  store: EventStore,
  sessionId: string,
  view: 'display' | 'context',
  at?: number,
): Promise<Replayed | null> {
  const streamId = toSessionStreamId(sessionId);
  const head = await store.head(streamId);
  if (!head) return null;
  const target = at === undefined ? head.version : Math.min(at, head.version);
  let state: SessionState = initialSessionState();
  for (let from = 1; from <= target; from += PAGE) {
    const page = await store.readStream(streamId, { from, to: Math.min(target, from + PAGE - 1) });
    state = evolveAll(state, page.map(toDomainEvent));
  }
  // An erased session takes no event after its erasure: the head event says whether it was erased.
  const last = target === head.version ? null : (await store.readStream(streamId, { from: head.version, to: head.version }))[0];
  const erased = last ? evolveAll(initialSessionState(), [toDomainEvent(last)]).erased : state.erased;
  const rendered = render(state);
  const { messages, toolCards, hash } = renderTranscript(rendered, view);
  return { transcript: { sessionId, version: target, view, messages, toolCards, hash }, markers: rendered.markers, erased };
}

/** `chronicle replay ID [--at VERSION] [--view display|context] [--json]`. */
export async function replayCommand(db: CliDatabase, io: CliIo, options: ReplayOptions): Promise<number> {
  const replayed = await replaySession(db.store, options.sessionId, options.view, options.at);
  if (!replayed) throw new CliError(EXIT.usage, `chronicle: session ${options.sessionId} was never started`);
  if (replayed.erased) {
    const { at, reason } = replayed.erased;
    throw new CliError(EXIT.usage, `chronicle: session ${options.sessionId} was erased at ${new Date(at * 1000).toISOString()} (${reason}); its content is gone`);
  }
  if (options.json) await write(io.stdout, `${JSON.stringify(replayed.transcript)}\n`);
  else await write(io.stdout, renderReadable(replayed.transcript, replayed.markers));
  return EXIT.ok;
}
