import {
  evolveAll,
  flattenJournal,
  initialSessionState,
  journalFromEvents,
  rangesSize,
  type RunRecord,
  runOf,
  type SessionEvent,
  type SessionState,
  toSessionStreamId,
} from '#domain';
import type { EventStore } from '#event-store';
import { ByteBoundedCache } from './answers/byte-bounded.cache.js';
import { LruCache } from './lru-cache.js';
import { restoreStreamJournals, type SnapshotStore } from './snapshot-store.js';
import { tallied, type WorkTally } from './work-tally.js';

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

/**
 * The heap a cached entry holds, estimated from what it counts (events folded, rows rendered): a fold state
 * measured ≤ 100 bytes per event on the V8 heap (a token-by-token journal, the heaviest kind), a rendered row
 * less. Rounded up, plus a base for the entry itself.
 */
export const estimatedBytes = (count: number): number => 2048 + 128 * count;

/**
 * The fold states of sessions: the latest snapshot plus the tail of events, folded with the pure projection.
 * Each session's latest state (its head when read, or the writer's last append) is kept in process, bounded in
 * bytes, so the next read or write folds only the events after it.
 */
export class SessionStateCache {
  private readonly states: ByteBoundedCache<string, { version: number; state: SessionState }>;
  /** Streams whose state was dropped to make room, lately: loading one again is a reload (`onReload`). */
  private readonly evicted = new LruCache<string, true>(10_000);

  constructor(
    private readonly store: EventStore,
    private readonly snapshots: SnapshotStore,
    maxBytes: number,
    onBytes?: (bytes: number) => void,
    /**
     * Told when a state this cache dropped to make room is loaded again, with the events that load read from the
     * store (a pending turn's journal lives in the stream, not in the snapshot, so a long turn is read whole): the
     * states the process works on do not fit in its budget.
     */
    private readonly onReload?: (streamId: string, eventsRead: number) => void,
  ) {
    this.states = new ByteBoundedCache(maxBytes, onBytes, (streamId) => this.evicted.set(streamId, true));
  }

  /** The fold state at the current version (or at `at`, for time travel); the fold's time goes to `tally`. */
  async load(sessionId: string, at?: number, tally?: WorkTally): Promise<LoadedState> {
    const streamId = toSessionStreamId(sessionId);
    const head = await this.store.head(streamId);
    if (!head) return { sessionId, version: 0, state: initialSessionState(), exists: false, fresh: true };
    const target = at === undefined ? head.version : Math.min(at, head.version);
    const state = await this.stateAt(streamId, target, target === head.version, tally);
    return { sessionId, version: target, state, exists: true, fresh: true };
  }

  /**
   * The latest state this process knows (its last write or read of the session), without a round trip;
   * a session it does not hold is loaded from the store. For the writer, whose append verifies the version.
   */
  async loadLatest(sessionId: string): Promise<LoadedState> {
    const cached = this.latest(sessionId);
    if (!cached) return this.load(sessionId);
    return { sessionId, version: cached.version, state: cached.state, exists: true, fresh: false };
  }

  /** The latest state this process holds of the session, if any. */
  latest(sessionId: string): { version: number; state: SessionState } | undefined {
    return this.states.get(toSessionStreamId(sessionId));
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

  /** The writer hands over the state it appended, so the next read or write folds nothing. */
  remember(streamId: string, version: number, state: SessionState): void {
    this.states.set(streamId, { version, state }, estimatedBytes(version));
  }

  /** Drops the session's state (another replica erased it: the state held its content). */
  forget(streamId: string): void {
    this.states.delete(streamId);
  }

  clear(): void {
    this.states.clear();
  }

  /** Only a state at the head is cached as the session's latest: a time-travel fold must not pose as it. */
  private async stateAt(streamId: string, target: number, atHead: boolean, tally?: WorkTally): Promise<SessionState> {
    const cached = this.states.get(streamId);
    let base: { version: number; state: SessionState };
    let eventsRead = 0;
    if (cached && cached.version <= target) base = cached;
    else {
      const snapshot = await this.snapshots.latest(streamId, target);
      if (snapshot === null) base = { version: 0, state: initialSessionState() };
      else {
        const restored = await restoreStreamJournals(this.store, streamId, snapshot.state);
        eventsRead += restored.eventsRead;
        base = { version: snapshot.version, state: restored.state };
      }
    }
    let state = base.state;
    if (base.version < target) {
      const tail = await this.store.readStreamData(streamId, { from: base.version + 1, to: target });
      eventsRead += tail.length;
      // One fold over the tail (it owns its intermediate states: a token is a push, not a copy).
      state = tallied(tally, () => evolveAll(state, tail as readonly SessionEvent[]));
    }
    if (atHead && base !== cached && this.evicted.get(streamId) !== undefined) {
      this.evicted.delete(streamId);
      this.onReload?.(streamId, eventsRead);
    }
    if (atHead && (!cached || cached.version <= target)) this.states.set(streamId, { version: target, state }, estimatedBytes(target));
    return state;
  }
}
