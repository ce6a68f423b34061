import { performance } from 'node:perf_hooks';

export type RebuildPhase = 'fill' | 'catch-up' | 'swap' | 'done';

export interface RebuildProgress {
  readonly name: string;
  readonly phase: RebuildPhase;
  /** Events read from the log so far. */
  readonly eventsReplayed: number;
  /**
   * Events the rebuild expects to read, counted as it starts (the index: every event of the log; the snapshots:
   * each stream's events up to its last snapshot); appends during the rebuild may take `eventsReplayed` past it.
   */
  readonly eventsToReplay: number;
  /** Rows written to the new table so far. */
  readonly rows: number;
  readonly seconds: number;
  readonly eventsPerSecond: number;
}

/** Counts a rebuild's work and reports it after every page. */
export class RebuildTracker {
  private readonly started = performance.now();
  phase: RebuildPhase = 'fill';
  eventsReplayed = 0;
  eventsToReplay = 0;
  rows = 0;

  constructor(
    readonly name: string,
    private readonly onProgress?: (progress: RebuildProgress) => void,
  ) {}

  seconds(): number {
    return (performance.now() - this.started) / 1000;
  }

  report(phase: RebuildPhase = this.phase): void {
    this.phase = phase;
    const seconds = this.seconds();
    this.onProgress?.({
      name: this.name,
      phase,
      eventsReplayed: this.eventsReplayed,
      eventsToReplay: Math.max(this.eventsToReplay, this.eventsReplayed),
      rows: this.rows,
      seconds,
      eventsPerSecond: seconds > 0 ? Math.round(this.eventsReplayed / seconds) : 0,
    });
  }
}
