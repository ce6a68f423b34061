/** Bounds of one group commit. */
export interface GroupCommitLimits {
  /** Appends in one transaction. */
  readonly maxItems: number;
  /** Sum of the appends' sizes (their canonical data) in one transaction. */
  readonly maxBytes: number;
  /** Transactions in flight at once; the next batch forms while they run. */
  readonly maxInFlight: number;
  /**
   * At most this long (ms) a free slot waits for a batch to hold as many appends as were outstanding at once
   * lately (0, the default: never; a batch goes as soon as a slot is free). For a store whose cost per
   * transaction is high (Citus: a routed call per node), so concurrent writers share calls; a lone writer never
   * has more than its own append outstanding, so it never waits.
   */
  readonly lingerMs?: number;
}

export const DEFAULT_GROUP_COMMIT: GroupCommitLimits = { maxItems: 256, maxBytes: 8 * 1024 * 1024, maxInFlight: 1 };

/** How many of the last arrivals a linger's target (the most appends outstanding at one of them) looks back over. */
const RECENT_ARRIVALS = 64;

interface Waiting<I, R> {
  readonly item: I;
  readonly bytes: number;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/** Per-item results of one batch: a value or an error for each item, in the batch's order. */
export type BatchOutcome<R> = ({ ok: true; value: R } | { ok: false; error: unknown })[];

/**
 * The write combiner. An item that finds a free slot is sent at once (no timer: one client's latency does not
 * grow); items that arrive while every slot is busy wait and leave together, bounded by count and bytes, as
 * soon as a slot frees. With `lingerMs` (Citus) a free slot may wait that long for as many appends as were
 * outstanding at once lately. `commit` settles each item of a batch on its own, so one item's failure is only its own.
 */
export class GroupCommitQueue<I, R> {
  private readonly waiting: Waiting<I, R>[] = [];
  private inFlight = 0;
  /** Items of the batches in flight. */
  private inFlightItems = 0;
  /** With a linger: the appends outstanding (waiting or in flight) as each of the last ones arrived, the timer of the wait under way, and whether it ran out. */
  private readonly recent: number[] = [];
  private lingering: NodeJS.Timeout | null = null;
  private lingerOver = false;

  constructor(
    private readonly commit: (items: readonly I[]) => Promise<BatchOutcome<R>>,
    private readonly limits: GroupCommitLimits = DEFAULT_GROUP_COMMIT,
    private readonly onBatch?: (size: number) => void,
  ) {}

  submit(item: I, bytes: number): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, bytes, resolve, reject });
      if ((this.limits.lingerMs ?? 0) > 0) {
        this.recent.push(this.waiting.length + this.inFlightItems);
        if (this.recent.length > RECENT_ARRIVALS) this.recent.shift();
      }
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.limits.maxInFlight && this.waiting.length > 0) {
      if (this.shouldLinger()) return;
      if (this.lingering) clearTimeout(this.lingering);
      this.lingering = null;
      const batch = this.take();
      this.inFlight += 1;
      this.inFlightItems += batch.length;
      try {
        this.onBatch?.(batch.length);
      } catch {
        // A metrics callback's failure is no append's: the batch goes on.
      }
      void this.run(batch);
    }
  }

  /**
   * Whether the free slot waits for more items (starting the wait's timer): only with a linger, while fewer
   * items wait than were outstanding at once lately and fewer bytes than the bound, and until the timer runs out.
   */
  private shouldLinger(): boolean {
    const lingerMs = this.limits.lingerMs ?? 0;
    if (lingerMs <= 0 || this.lingerOver) return false;
    const target = Math.min(this.limits.maxItems, Math.max(1, ...this.recent));
    if (this.waiting.length >= target) return false;
    if (this.waiting.reduce((sum, w) => sum + w.bytes, 0) >= this.limits.maxBytes) return false;
    this.lingering ??= setTimeout(() => {
      this.lingering = null;
      this.lingerOver = true;
      try {
        this.pump();
      } finally {
        this.lingerOver = false;
      }
    }, lingerMs);
    return true;
  }

  private take(): Waiting<I, R>[] {
    let bytes = 0;
    let count = 0;
    // An item larger than maxBytes still goes, alone.
    while (count < this.waiting.length && count < this.limits.maxItems) {
      const next = this.waiting[count];
      if (count > 0 && bytes + next.bytes > this.limits.maxBytes) break;
      bytes += next.bytes;
      count += 1;
    }
    return this.waiting.splice(0, count);
  }

  /**
   * Commits a batch, then frees its slot and sends the next batch (everything that arrived meanwhile) before
   * settling this one's appends: their callers' work (answering, caching) then runs while the next commit is
   * under way, instead of delaying it.
   */
  private async run(batch: Waiting<I, R>[]): Promise<void> {
    let outcomes: BatchOutcome<R> | undefined;
    let failure: unknown;
    try {
      outcomes = await this.commit(batch.map((w) => w.item));
    } catch (error) {
      failure = error;
    }
    this.inFlight -= 1;
    this.inFlightItems -= batch.length;
    try {
      this.pump();
    } finally {
      batch.forEach((waiting, index) => {
        const outcome = outcomes?.[index];
        if (outcome === undefined) waiting.reject(failure ?? new Error('the batch gave no outcome for this append'));
        else if (outcome.ok) waiting.resolve(outcome.value);
        else waiting.reject(outcome.error);
      });
    }
  }
}
