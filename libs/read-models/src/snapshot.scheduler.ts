import type { SessionState } from '#domain';
import type { SnapshotStore } from './snapshot-store.js';

export interface SnapshotSchedulerOptions {
  /** The least number of events between two snapshots of a stream (see `snapshotDue`). */
  readonly snapshotEvery: number;
  /** Quiet time after which a session's unsnapshotted tail is snapshotted (default 2000 ms; 0 = never). */
  readonly idleSnapshotMs?: number;
  readonly onError?: (error: unknown) => void;
}

/**
 * A snapshot is due when the tail since the last one reaches `every` events and a quarter of the stream. A
 * snapshot costs the whole state (megabytes on a long session), so snapshots of a long session are spaced
 * out in proportion: the bytes written per event stay bounded, and a cold read still folds at most a quarter
 * of the stream after its snapshot.
 */
export function snapshotDue(lastSnapshotVersion: number, version: number, every: number): boolean {
  return version - lastSnapshotVersion >= Math.max(every, Math.floor(lastSnapshotVersion / 4));
}

/**
 * When the states the writer appends are snapshotted: as soon as one is due, else once its session has been
 * quiet for `idleSnapshotMs`. Saves run after the append answered (off the hot path), one per stream at a time.
 */
export class SnapshotScheduler {
  private readonly snapshotting = new Set<string>();
  private readonly lastSnapshot = new Map<string, number>();
  /** Sessions appended to since their last snapshot, oldest append first (the idle snapshot's queue). */
  private readonly idle = new Map<string, { version: number; state: SessionState; at: number }>();
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly snapshots: SnapshotStore,
    private readonly options: SnapshotSchedulerOptions,
  ) {}

  /** The writer appended up to `version`: snapshot now if one is due, else when the session falls quiet. */
  appended(streamId: string, version: number, state: SessionState): void {
    const last = this.lastSnapshot.get(streamId) ?? 0;
    if (snapshotDue(last, version, this.options.snapshotEvery)) this.snapshot(streamId, version, state);
    else if (version > last) this.markIdleCandidate(streamId, version, state);
  }

  /** Forgets the session's idle snapshot, if one is waiting (it was erased: the state holds its content). */
  forget(streamId: string): void {
    this.idle.delete(streamId);
  }

  /** Forgets the sessions waiting for their idle snapshot. */
  clear(): void {
    this.idle.clear();
  }

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
}
