import {
  evolveAll,
  flattenJournal,
  initialSessionState,
  journalFromEvents,
  rangesSize,
  type RunRecord,
  runOf,
  render,
  renderInputsOf,
  type RenderInputs,
  renderNext,
  renderTranscript,
  type StreamingOutput,
  streamingOutputOf,
  type RenderedTranscript,
  type SessionEvent,
  type SessionState,
  type SessionView,
  type TranscriptDelta,
  transcriptDelta,
  type TranscriptViewName,
  toSessionStreamId,
} from '#domain';
import type { EventStore, StoredEvent } from '#event-store';
import { LruCache } from './lru-cache.js';
import { type SnapshotStore, withStreamJournals } from './snapshot-store.js';
import { ByteBoundedCache } from './answers/byte-bounded.cache.js';

export interface LoadedState {
  readonly sessionId: string;
  readonly version: number;
  readonly state: SessionState;
  readonly exists: boolean;
  /**
   * True when `version` was read from the stream head just now; false when it is this process's latest
   * known state (`loadLatest`), which another replica may have moved past.
   */
  readonly fresh: boolean;
}

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
   * Measured on the bench's mix (12 streamed sessions of 25,000 events, 48 of 2,000, then 1,000 of 200): a
   * 96 MiB budget held 56 MB of live heap, 64 MiB held 38 MB; the service's code and runtime take ~150 MB
   * resident before any session, and V8 keeps headroom above its live heap.
   */
  readonly cacheBytes?: number;
  /** Told each cache's estimated size after every change (a gauge). */
  readonly onCacheBytes?: (cache: 'states' | 'views' | 'transcripts', bytes: number) => void;
  readonly onCache?: (result: 'hit' | 'miss') => void;
  readonly onError?: (error: unknown) => void;
}

/**
 * A snapshot is due when the tail since the last one reaches `every` events and a quarter of the stream. A
 * snapshot costs the whole state (megabytes on a long session), so snapshots of a long session are spaced
 * out in proportion: the bytes written per event stay bounded, and a cold read still folds at most a quarter
 * of the stream after its snapshot.
 */
export const DEFAULT_VIEW_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * The heap a cached entry holds, estimated from what it counts (events folded, rows rendered): a fold state
 * measured ≤ 100 bytes per event on the V8 heap (a token-by-token journal, the heaviest kind), a rendered row
 * less. Rounded up, plus a base for the entry itself.
 */
export const estimatedBytes = (count: number): number => 2048 + 128 * count;

export function snapshotDue(lastSnapshotVersion: number, version: number, every: number): boolean {
  return version - lastSnapshotVersion >= Math.max(every, Math.floor(lastSnapshotVersion / 4));
}

export const toDomainEvent = (event: Pick<StoredEvent, 'type' | 'data'>): SessionEvent =>
  ({ type: event.type, data: event.data }) as SessionEvent;

/**
 * Inline session views: the latest snapshot plus the tail of events, folded with the pure projection.
 * A read always folds up to the stream's current version, so it sees every acknowledged write on any
 * replica. Folded states and rendered views are cached in process by (stream, version).
 */
export class SessionViews {
  private readonly states: ByteBoundedCache<string, { version: number; state: SessionState }>;
  /** Latest rendered view per session (superseded versions are dropped, so one busy session cannot
   * crowd out the others), plus a small cache for time-travel reads. */
  private readonly views: ByteBoundedCache<string, { version: number; view: SessionView; inputs: RenderInputs }>;
  private readonly pastViews: LruCache<string, SessionView>;
  private readonly transcripts: ByteBoundedCache<string, RenderedTranscript>;
  /** A transcript by the rows it renders: a view reused by `renderNext` keeps its rows, so its hash is not computed again. */
  private readonly byRows = new WeakMap<object, RenderedTranscript>();
  private readonly streamingOutputs = new LruCache<string, StreamingOutput | null>(256);
  /** The last transcript hashed per (session, view). */
  private readonly latestTranscripts: ByteBoundedCache<string, RenderedTranscript>;
  private readonly snapshotting = new Set<string>();
  private readonly lastSnapshot = new Map<string, number>();
  /** Sessions appended to since their last snapshot, oldest append first (the idle snapshot's queue). */
  private readonly idle = new Map<string, { version: number; state: SessionState; at: number }>();
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: EventStore,
    private readonly snapshots: SnapshotStore,
    private readonly options: SessionViewsOptions,
  ) {
    const budget = options.cacheBytes ?? DEFAULT_VIEW_CACHE_BYTES;
    const report = options.onCacheBytes;
    this.states = new ByteBoundedCache(budget / 2, (bytes) => report?.('states', bytes));
    this.views = new ByteBoundedCache(budget / 4, (bytes) => report?.('views', bytes));
    this.pastViews = new LruCache(50);
    let keyedBytes = 0;
    let latestBytes = 0;
    const transcriptsReport = () => report?.('transcripts', keyedBytes + latestBytes);
    this.transcripts = new ByteBoundedCache(budget / 8, (bytes) => ((keyedBytes = bytes), transcriptsReport()));
    this.latestTranscripts = new ByteBoundedCache(budget / 8, (bytes) => ((latestBytes = bytes), transcriptsReport()));
  }

  /** The fold state at the current version (or at `at`, for time travel). */
  async load(sessionId: string, at?: number): Promise<LoadedState> {
    const streamId = toSessionStreamId(sessionId);
    const head = await this.store.head(streamId);
    if (!head) return { sessionId, version: 0, state: initialSessionState(), exists: false, fresh: true };
    const target = at === undefined ? head.version : Math.min(at, head.version);
    const state = await this.stateAt(streamId, target, target === head.version);
    return { sessionId, version: target, state, exists: true, fresh: true };
  }

  /**
   * The latest state this process knows (its last write or read of the session), without a round trip;
   * a session it does not hold is loaded from the store. For the writer, whose append verifies the version.
   */
  async loadLatest(sessionId: string): Promise<LoadedState> {
    const cached = this.states.get(toSessionStreamId(sessionId));
    if (!cached) return this.load(sessionId);
    return { sessionId, version: cached.version, state: cached.state, exists: true, fresh: false };
  }

  /**
   * A run of the session at its current version, with its whole journal: a settled run's journal is archived
   * in the state (`archivedSeqs`), so its events are read back from the stream, between the versions of its
   * `journalSpan`; should that span not hold every seq the state kept, the whole stream is read.
   */
  async loadRun(sessionId: string, runId: string): Promise<{ exists: boolean; run: RunRecord | undefined }> {
    const loaded = await this.load(sessionId);
    const run = loaded.exists ? runOf(loaded.state, runId) : undefined;
    if (run?.archivedSeqs == null || run.journalSpan === null) return { exists: loaded.exists, run };
    const streamId = toSessionStreamId(sessionId);
    const [from, to] = run.journalSpan;
    // The journal as the fold kept it before it was archived: in seq order, the first delivery of each seq.
    const journalIn = async (range: { from?: number; to: number }) =>
      flattenJournal(journalFromEvents(runId, (await this.store.readStreamData(streamId, range)) as SessionEvent[]));
    let journal = await journalIn({ from, to });
    if (journal.length !== rangesSize(run.archivedSeqs)) journal = await journalIn({ to: loaded.version });
    return { exists: true, run: { ...run, journal } };
  }

  /** Only a state at the head is cached as the session's latest: a time-travel fold must not pose as it. */
  private async stateAt(streamId: string, target: number, atHead: boolean): Promise<SessionState> {
    const cached = this.states.get(streamId);
    let base: { version: number; state: SessionState };
    if (cached && cached.version <= target) base = cached;
    else {
      const snapshot = await this.snapshots.latest(streamId, target);
      base = snapshot ? { version: snapshot.version, state: await withStreamJournals(this.store, streamId, snapshot.state) } : { version: 0, state: initialSessionState() };
    }
    let state = base.state;
    if (base.version < target) {
      const tail = await this.store.readStreamData(streamId, { from: base.version + 1, to: target });
      // One fold over the tail (it owns its intermediate states: a token is a push, not a copy).
      state = evolveAll(state, tail as readonly SessionEvent[]);
    }
    if (atHead && (!cached || cached.version <= target)) this.states.set(streamId, { version: target, state }, estimatedBytes(target));
    return state;
  }

  /** Rendered view at the current version (or `at`), cached by (session, version). */
  async view(
    sessionId: string,
    at?: number,
  ): Promise<{ version: number; view: SessionView; exists: boolean; state: SessionState }> {
    const loaded = await this.load(sessionId, at);
    if (!loaded.exists) return { version: 0, view: render(loaded.state), exists: false, state: loaded.state };
    const view = this.renderLatest(sessionId, loaded.version, loaded.state);
    return { version: loaded.version, view, exists: true, state: loaded.state };
  }

  /**
   * The rendered view of `state` at `version`, from the caches or rendered once and cached. A newer version
   * of the session's latest view is produced from it (`renderNext`): after a token streamed into the pending
   * turn that is the same transcript with a new summary, whatever the session's length.
   */
  private renderLatest(sessionId: string, version: number, state: SessionState): SessionView {
    const latest = this.views.get(sessionId);
    let view = latest?.version === version ? latest.view : this.pastViews.get(`${sessionId}@${version}`);
    this.options.onCache?.(view ? 'hit' : 'miss');
    if (!view) {
      if (!latest || latest.version < version) {
        view = renderNext(latest, state);
        // Kept with what it was rendered from (references), not the state: a view outliving its state in the
        // states cache would otherwise hold the state's journals unweighed.
        this.views.set(sessionId, { version, view, inputs: renderInputsOf(state) }, estimatedBytes(view.display.length + view.context.length));
      } else {
        view = render(state);
        this.pastViews.set(`${sessionId}@${version}`, view);
      }
    }
    return view;
  }

  /**
   * A view at `atLeast` or later without a read of the stream head when this process already holds such a
   * state (its own writes): for the async projector, whose rows only need to be no older than what it read.
   */
  async viewAtLeast(
    sessionId: string,
    atLeast: number,
  ): Promise<{ version: number; view: SessionView; exists: boolean; state: SessionState }> {
    const cached = this.states.get(toSessionStreamId(sessionId));
    if (!cached || cached.version < atLeast) return this.view(sessionId);
    return { version: cached.version, view: this.renderLatest(sessionId, cached.version, cached.state), exists: true, state: cached.state };
  }

  /** The transcript answer (messages, tool cards, hash) of a view, hashed once per (session, version, view). */
  async transcript(sessionId: string, name: TranscriptViewName, at?: number): Promise<TranscriptAt> {
    const { version, view, exists, state } = await this.view(sessionId, at);
    const key = `${sessionId}@${version}/${name}`;
    let transcript = this.transcripts.get(key);
    if (!transcript) {
      const rows = name === 'display' ? view.display : view.context;
      const known = this.byRows.get(rows);
      const latestKey = `${sessionId}/${name}`;
      // The session's previous transcript lends the chain links of the rows both share.
      transcript = known?.toolCards === view.toolCards ? known : renderTranscript(view, name, this.latestTranscripts.get(latestKey));
      this.byRows.set(rows, transcript);
      if (exists) {
        this.transcripts.set(key, transcript, estimatedBytes(transcript.messages.length));
        this.latestTranscripts.set(latestKey, transcript, estimatedBytes(transcript.messages.length));
      }
    }
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
    const base = since === current.version ? current.transcript : this.transcripts.get(`${sessionId}@${since}/${name}`);
    const delta = base === undefined || !current.exists ? { from: 0, messages } : transcriptDelta(base, current.transcript);
    return { ...current, ...delta };
  }

  /**
   * The pending turn's streaming output at a version (`streamingOutputOf`), computed once per (session,
   * version) however many watchers ask: it reads the whole journal of the turn.
   */
  streaming(sessionId: string, version: number, state: SessionState): StreamingOutput | null {
    const key = `${sessionId}@${version}`;
    const cached = this.streamingOutputs.get(key);
    if (cached !== undefined) return cached;
    const output = streamingOutputOf(state);
    this.streamingOutputs.set(key, output);
    return output;
  }

  /** The writer hands over the state it appended, so the next read or write folds nothing. */
  remember(sessionId: string, version: number, state: SessionState): void {
    const streamId = toSessionStreamId(sessionId);
    this.states.set(streamId, { version, state }, estimatedBytes(version));
    const last = this.lastSnapshot.get(streamId) ?? 0;
    if (snapshotDue(last, version, this.options.snapshotEvery)) this.snapshot(streamId, version, state);
    else if (version > last) this.markIdleCandidate(streamId, version, state);
  }

  /** Saved after the append answered (off the hot path); one save per stream at a time. */
  private snapshot(streamId: string, version: number, state: SessionState): void {
    if (this.snapshotting.has(streamId)) return;
    this.snapshotting.add(streamId);
    this.lastSnapshot.set(streamId, version);
    this.idle.delete(streamId);
    setImmediate(() => {
      this.snapshots
        .save(streamId, version, state)
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => this.snapshotting.delete(streamId));
    });
  }

  /**
   * A session that stops between two snapshots is snapshotted once it has been quiet for `idleSnapshotMs`, so
   * its next cold read folds no tail. One timer for all sessions, running only while some are waiting.
   */
  private markIdleCandidate(streamId: string, version: number, state: SessionState): void {
    const idleMs = this.options.idleSnapshotMs ?? 2000;
    if (idleMs <= 0) return;
    this.idle.delete(streamId);
    this.idle.set(streamId, { version, state, at: Date.now() });
    if (this.idleTimer) return;
    this.idleTimer = setInterval(() => {
      const quietSince = Date.now() - idleMs;
      // Insertion order is last-append order: stop at the first session that is not quiet yet.
      for (const [id, entry] of this.idle) {
        if (entry.at > quietSince) break;
        this.idle.delete(id);
        if (entry.version > (this.lastSnapshot.get(id) ?? 0)) this.snapshot(id, entry.version, entry.state);
      }
      if (this.idle.size === 0 && this.idleTimer) {
        clearInterval(this.idleTimer);
        this.idleTimer = null;
      }
    }, Math.max(10, Math.floor(idleMs / 2)));
    this.idleTimer.unref();
  }

  clear(): void {
    this.idle.clear();
    this.states.clear();
    this.views.clear();
    this.pastViews.clear();
    this.transcripts.clear();
    this.latestTranscripts.clear();
    this.streamingOutputs.clear();
  }
}
