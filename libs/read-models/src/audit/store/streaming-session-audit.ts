import {
  evolveAll,
  initialSessionState,
  render,
  renderTranscript,
  type SessionEvent,
  type SessionState,
  type SessionView,
  storedFormOf,
  withJournalsOf,
} from '#domain/replay';
import { indexRowOf, type StoredIndexRow } from '../../session-index/index-row.builder.js';
import { summaryRowOf } from '../../session-summary/summary-row.builder.js';
import { type ChainLink, ChainFollower, type ChainVerdict, type StreamHeadLink } from '../chain-verification.js';
import { DEFAULT_DIFFERENCE_LIMIT, deepDiff, type Difference } from '../deep-diff.js';
import { jsonEqual } from '../json-equal.js';
import type { SessionAudit } from '../session-audit.js';

/**
 * What is stored about one session, read before its events (the served view is derived, as a cold replica
 * serves it). A snapshot's state is taken when the fold reaches its version, so a long session's snapshots (megabytes
 * parsed) are not held while its events stream by.
 */
export interface StoredModels {
  readonly snapshots: readonly { readonly version: number; readonly state: () => unknown }[];
  readonly summary: { readonly version: number; readonly data: unknown } | null;
  readonly index: StoredIndexRow | null;
  readonly indexCaughtUp: boolean;
}

/**
 * Where an audit resumes instead of folding from the start: a fold state at `version` known to be the pure
 * fold of the events up to it (a stored snapshot an earlier audit verified), and the chain hash at that version.
 * Events at or before it are neither re-hashed nor folded; stored models written at or before it are not compared.
 */
export interface AuditResumePoint {
  readonly version: number;
  readonly lastHash: string;
  readonly state: SessionState;
}

/**
 * One session audited as its events stream by, page after page: the chain is followed link by link (or by the
 * whole-store audit's reading thread, `feedUnchained`), the fold
 * advances, and each stored model is compared when the fold reaches the version it was written at. Memory holds
 * the fold state, never the events. The served view is what a cold replica answers: the newest snapshot plus
 * the tail folded on it (a second fold that starts at that snapshot).
 */
export class StreamingSessionAudit {
  private readonly chain: ChainFollower;
  private readonly marks: number[];
  private readonly differences: Difference[] = [];
  private readonly servedFrom: StoredModels['snapshots'][number] | null;
  private state: SessionState;
  private served: SessionState | null = null;
  private version: number;
  private failure: string | null = null;
  /** Whether events were fed whose chain another follows (`feedUnchained`). */
  private unchained = false;
  /** The replayed state's view, rendered once (the index row and the verdict both compare the head's). */
  private rendered: { readonly state: SessionState; readonly view: SessionView } | null = null;

  constructor(
    readonly sessionId: string,
    private readonly head: StreamHeadLink,
    private readonly stored: StoredModels,
    private readonly limit = DEFAULT_DIFFERENCE_LIMIT,
    from?: AuditResumePoint,
    /**
     * False when `finish` will be handed the view this process serves: the cold replica's view (the second
     * fold, from the newest snapshot) is then never compared, so it is not folded.
     */
    foldColdView = true,
  ) {
    this.chain = new ChainFollower(from);
    this.state = from?.state ?? initialSessionState();
    this.version = from?.version ?? 0;
    const within = (v: number) => v >= (from ? from.version + 1 : 0) && v <= head.version;
    const snapshots = stored.snapshots.filter((s) => within(s.version));
    this.servedFrom = foldColdView ? (snapshots.at(-1) ?? null) : null;
    const versions = [...snapshots.map((s) => s.version), stored.summary?.version ?? -1, stored.index?.version ?? -1];
    this.marks = [...new Set(versions.filter(within))].sort((a, b) => a - b);
    this.compareAt(this.version);
  }

  /** The replayed fold state so far (the pure fold of the events fed). */
  get replayedState(): SessionState {
    return this.state;
  }

  /** The next events of the stream, in version order: their chain followed, then folded. */
  feed(events: readonly ChainLink[]): void {
    for (const event of events) this.chain.push(event);
    // A link is a `{ type, data }` with more fields: the fold reads only those two.
    this.fold(events as unknown as readonly SessionEvent[]);
  }

  /**
   * The next events of the stream, in version order, whose chain another follows (the whole-store audit's
   * reading thread): `finish` is then handed that chain's verdict.
   */
  feedUnchained(events: readonly SessionEvent[]): void {
    this.unchained = true;
    this.fold(events);
  }

  private fold(events: readonly SessionEvent[]): void {
    let from = 0;
    while (from < events.length && this.failure === null) {
      const mark = this.marks.find((m) => m > this.version);
      const to = mark === undefined ? events.length : Math.min(events.length, from + mark - this.version);
      this.advance(from === 0 && to === events.length ? events : events.slice(from, to));
      from = to;
      this.compareAt(this.version);
    }
  }

  /**
   * The verdict once every event up to the head was fed. `servedView`: the view this process serves at the head,
   * compared instead of the cold replica's (null: it says the session does not exist). `chainVerdict`: the
   * verdict of the chain followed elsewhere, required after `feedUnchained`.
   */
  finish(servedView?: SessionView | null, chainVerdict?: ChainVerdict): SessionAudit {
    if (chainVerdict === undefined && this.unchained) throw new Error(`audit: ${this.sessionId}'s chain was followed elsewhere, and its verdict is missing`);
    const chain = chainVerdict ?? this.chain.verdict(this.head);
    if (this.failure !== null) return this.result(chain, '', '', [{ path: 'replay', stored: undefined, replayed: `failed: ${this.failure}` }]);
    const replayed = this.replayedView();
    const index = this.stored.index && this.stored.index.version <= this.head.version ? this.stored.index : null;
    if (this.stored.indexCaughtUp && (index === null || index.version < this.version)) {
      this.add([{ path: 'index.version', stored: index?.version, replayed: this.version }]);
    }
    let served: SessionView = replayed;
    // A served view equal to the replayed one as JSON has its transcript hash (canonical JSON of the same values).
    let sameView = true;
    if (servedView !== undefined) {
      if (servedView === null) this.add([{ path: 'view', stored: undefined, replayed: `a view at version ${this.version}` }]);
      else sameView = this.diff((served = servedView), replayed, 'view');
    } else if (this.served !== null) {
      const rendered = this.safely(() => render(this.served as SessionState), 'view');
      served = rendered ?? replayed;
      sameView = rendered !== null && this.diff(served, replayed, 'view');
    }
    const replayedHash = renderTranscript(replayed, 'display').hash;
    const storedHash = servedView === null ? '' : sameView || served === replayed ? replayedHash : renderTranscript(served, 'display').hash;
    return this.result(chain, storedHash, replayedHash, this.differences);
  }

  private result(chain: SessionAudit['chain'], storedHash: string, replayedHash: string, differences: readonly Difference[]): SessionAudit {
    const match = chain.ok && differences.length === 0;
    const erased = this.state.erased !== null ? { erased: true as const } : {};
    return { sessionId: this.sessionId, version: this.version, storedHash, replayedHash, match, chain, differences, ...erased };
  }

  private advance(events: readonly SessionEvent[]): void {
    try {
      this.state = evolveAll(this.state, events);
      if (this.served !== null) this.served = evolveAll(this.served, events);
    } catch (error) {
      // Projections do not throw on odd events; if one ever does, that is a finding, not an outage.
      this.failure = error instanceof Error ? error.message : String(error);
    }
    this.version += events.length;
  }

  private compareAt(version: number): void {
    if (this.failure !== null || !this.marks.includes(version)) return;
    for (const snapshot of this.stored.snapshots) {
      if (snapshot.version !== version) continue;
      const state = this.safely(snapshot.state, `snapshot@${version}`);
      // A snapshot stores the state's stored form (its live journals stay in the stream); a cold replica reads
      // those journals back from the events, which here are the replay's.
      if (state !== null) this.diff(state, storedFormOf(this.state), `snapshot@${version}`);
      if (snapshot === this.servedFrom) this.served = state === null ? null : withJournalsOf(state as SessionState, this.state);
    }
    const { summary, index } = this.stored;
    if (summary?.version === version) this.diff(summary.data, summaryRowOf(this.state, version), 'summary');
    if (index?.version === version) this.diff(index, indexRowOf(this.replayedView(), version), 'index');
  }

  /** `render` of the replayed state (a fold returns a new state object, so the same object is the same state). */
  private replayedView(): SessionView {
    if (this.rendered?.state !== this.state) this.rendered = { state: this.state, view: render(this.state) };
    return this.rendered.view;
  }

  private safely<T>(work: () => T, path: string): T | null {
    try {
      return work();
    } catch (error) {
      this.add([{ path, stored: undefined, replayed: `failed: ${error instanceof Error ? error.message : String(error)}` }]);
      return null;
    }
  }

  /** Whether the two are equal as JSON; paths are built only for what differs. */
  private diff(stored: unknown, replayed: unknown, path: string): boolean {
    if (jsonEqual(stored, replayed)) return true;
    this.add(deepDiff(stored, replayed, { path, limit: this.room() }));
    return false;
  }

  private room = () => this.limit - this.differences.length;

  private add(found: readonly Difference[]): void {
    for (const d of found) if (this.differences.length < this.limit) this.differences.push(d);
  }
}
