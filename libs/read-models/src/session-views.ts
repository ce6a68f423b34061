import {
  fromSessionStreamId,
  render,
  type RenderedTranscript,
  type RunRecord,
  type SessionEvent,
  type SessionState,
  type SessionView,
  type StreamingOutput,
  type TranscriptDelta,
  transcriptDelta,
  type TranscriptViewName,
  toSessionStreamId,
} from '#domain';
import type { EventStore, StoredEvent } from '#event-store';
import { SessionStateCache, type LoadedState } from './session-state.cache.js';
import { SnapshotScheduler } from './snapshot.scheduler.js';
import type { SnapshotStore } from './snapshot-store.js';
import { TranscriptCache } from './transcript.cache.js';
import { LruCache } from './lru-cache.js';
import { tallied, type WorkTally } from './work-tally.js';

export type { LoadedState } from './session-state.cache.js';

/** A session's transcript at a version, with the view and the fold state it came from. */
export interface TranscriptAt {
  readonly version: number;
  readonly transcript: RenderedTranscript;
  readonly exists: boolean;
  readonly view: SessionView;
  readonly state: SessionState;
}

export interface SessionViewsOptions {
  /** The least number of events between two snapshots of a stream (see `snapshotDue`). */
  readonly snapshotEvery: number;
  /** Quiet time after which a session's unsnapshotted tail is snapshotted (default 2000 ms; 0 = never). */
  readonly idleSnapshotMs?: number;
  /**
   * Bytes the in-process caches of fold states, rendered views and hashed transcripts may hold together
   * (default 64 MiB): states get half, views and transcripts a quarter each. Weights are estimates from the
   * stream's length (see `estimatedBytes`), so one 30,000-event session weighs as much as 150 short ones.
   * The default is sized for the service's resident-memory target (≤ 250 MB in `npm run bench`): its code and
   * runtime take ~150 MB before any session, and V8 keeps headroom above its live heap (bench/README.md).
   */
  readonly cacheBytes?: number;
  /** Told each cache's estimated size after every change (a gauge). */
  readonly onCacheBytes?: (cache: 'states' | 'views' | 'transcripts', bytes: number) => void;
  readonly onCache?: (result: 'hit' | 'miss') => void;
  readonly onError?: (error: unknown) => void;
  /**
   * Told when a session's fold state, dropped to make room, is loaded again, with the events that read from the
   * store: the states being worked on need more than their half of `cacheBytes` (`StateReloadWarnings`).
   */
  readonly onStateReload?: (sessionId: string, eventsRead: number) => void;
  /** Told once per session this process sees erased, after it dropped what it held of it (the service drops its answers). */
  readonly onErased?: (sessionId: string) => void;
}

export const DEFAULT_VIEW_CACHE_BYTES = 64 * 1024 * 1024;

export const toDomainEvent = (event: Pick<StoredEvent, 'type' | 'data'>): SessionEvent =>
  ({ type: event.type, data: event.data }) as SessionEvent;

/**
 * Inline session views: the fold state of a session (session-state.cache.ts) and what is rendered from it
 * (transcript.cache.ts), with the writer's states snapshotted off the hot path (snapshot.scheduler.ts). A read
 * always folds up to the stream's current version, so it sees every acknowledged write on any replica.
 */
export class SessionViews {
  private readonly states: SessionStateCache;
  private readonly rendered: TranscriptCache;
  private readonly snapshotter: SnapshotScheduler;
  /** Sessions seen erased (their rendered copies dropped once); bounded, a forgotten one is dropped again at no harm. */
  private readonly erased = new LruCache<string, true>(10_000);
  private readonly onErased: ((sessionId: string) => void) | undefined;

  constructor(store: EventStore, snapshots: SnapshotStore, options: SessionViewsOptions) {
    const budget = options.cacheBytes ?? DEFAULT_VIEW_CACHE_BYTES;
    const report = options.onCacheBytes;
    const onReload = options.onStateReload;
    this.states = new SessionStateCache(
      store,
      snapshots,
      budget / 2,
      (bytes) => report?.('states', bytes),
      onReload && ((streamId, eventsRead) => onReload(fromSessionStreamId(streamId) ?? streamId, eventsRead)),
    );
    this.rendered = new TranscriptCache({ viewBytes: budget / 4, transcriptBytes: budget / 4, onBytes: report, onCache: options.onCache });
    this.snapshotter = new SnapshotScheduler(snapshots, options);
    this.onErased = options.onErased;
  }

  /**
   * A state that says erased: whatever this process rendered of the session before (views, transcripts of every
   * version, streaming outputs, and through `onErased` the encoded answers) is dropped at once, not left to age
   * out, so no copy of the content stays in memory. Every replica does so when it first folds the erasure.
   */
  private noticed<T extends { readonly state: SessionState }>(sessionId: string, loaded: T): T {
    if (loaded.state.erased !== null && this.erased.get(sessionId) === undefined) {
      this.erased.set(sessionId, true);
      this.rendered.forget(sessionId);
      this.onErased?.(sessionId);
    }
    return loaded;
  }

  /**
   * Another replica erased the session (the live hub heard its notice): whatever this process holds of it —
   * its state, rendered views, encoded answers and a snapshot waiting to be written — is dropped at once, before
   * any read of it folds the erasure. The next read loads it from the store, erased.
   */
  forgetErased(sessionId: string): void {
    const streamId = toSessionStreamId(sessionId);
    this.snapshotter.forget(streamId);
    this.states.forget(streamId);
    this.rendered.forget(sessionId);
    this.onErased?.(sessionId);
  }

  /** The fold state at the current version (or at `at`, for time travel). */
  async load(sessionId: string, at?: number, tally?: WorkTally): Promise<LoadedState> {
    return this.noticed(sessionId, await this.states.load(sessionId, at, tally));
  }

  /** The latest state this process knows, without a round trip (`SessionStateCache.loadLatest`). */
  async loadLatest(sessionId: string): Promise<LoadedState> {
    return this.noticed(sessionId, await this.states.loadLatest(sessionId));
  }

  /** A run of the session at its current version, with its whole journal (`SessionStateCache.loadRun`). */
  loadRun(sessionId: string, runId: string): Promise<{ exists: boolean; run: RunRecord | undefined }> {
    return this.states.loadRun(sessionId, runId);
  }

  /** Rendered view at the current version (or `at`), cached by (session, version); the fold's and render's time go to `tally`. */
  async view(
    sessionId: string,
    at?: number,
    tally?: WorkTally,
  ): Promise<{ version: number; view: SessionView; exists: boolean; state: SessionState }> {
    const loaded = await this.load(sessionId, at, tally);
    if (!loaded.exists) return { version: 0, view: tallied(tally, () => render(loaded.state)), exists: false, state: loaded.state };
    const view = tallied(tally, () => this.rendered.view(sessionId, loaded.version, loaded.state));
    return { version: loaded.version, view, exists: true, state: loaded.state };
  }

  /**
   * A view at `atLeast` or later without a read of the stream head when this process already holds such a
   * state (its own writes): for the async projector, whose rows only need to be no older than what it read.
   */
  async viewAtLeast(
    sessionId: string,
    atLeast: number,
    tally?: WorkTally,
  ): Promise<{ version: number; view: SessionView; exists: boolean; state: SessionState }> {
    const cached = this.states.latest(sessionId);
    if (!cached || cached.version < atLeast) return this.view(sessionId, undefined, tally);
    const view = tallied(tally, () => this.rendered.view(sessionId, cached.version, cached.state));
    return { version: cached.version, view, exists: true, state: cached.state };
  }

  /** The transcript answer (messages, tool cards, hash) of a view, hashed once per (session, version, view). */
  async transcript(sessionId: string, name: TranscriptViewName, at?: number): Promise<TranscriptAt> {
    const { version, view, exists, state } = await this.view(sessionId, at);
    const transcript = this.rendered.transcript(sessionId, name, version, view, exists);
    return { version, transcript, exists, view, state };
  }

  /**
   * The transcript at the current version (or `at`) as a delta from `since`, a version the client holds: keep
   * the first `from` rows, append `messages`. Diffed against the transcript this process rendered at `since`
   * (every answer and live patch leaves one in the cache); a `since` it does not hold gets everything (`from: 0`).
   */
  async transcriptSince(sessionId: string, name: TranscriptViewName, since: number, at?: number): Promise<TranscriptAt & TranscriptDelta> {
    const current = await this.transcript(sessionId, name, at);
    const { messages } = current.transcript;
    const base = since === current.version ? current.transcript : this.rendered.transcriptAt(sessionId, name, since);
    const delta = base === undefined || !current.exists ? { from: 0, messages } : transcriptDelta(base, current.transcript);
    return { ...current, ...delta };
  }

  /** The pending turn's streaming output at a version: the newest two of each session kept, followed token by token (TranscriptCache). */
  streaming(sessionId: string, version: number, state: SessionState): StreamingOutput | null {
    return this.rendered.streaming(sessionId, version, state);
  }

  /** The writer hands over the state it appended, so the next read or write folds nothing; snapshotted when due. */
  remember(sessionId: string, version: number, state: SessionState): void {
    this.noticed(sessionId, { state });
    const streamId = toSessionStreamId(sessionId);
    this.states.remember(streamId, version, state);
    this.snapshotter.appended(streamId, version, state);
  }

  clear(): void {
    this.snapshotter.clear();
    this.states.clear();
    this.rendered.clear();
  }
}
