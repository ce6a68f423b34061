/**
 * Latency histogram with logarithmic buckets 1 % wide (from 1 µs up), so a percentile is exact to ~1 % at any
 * scale with a fixed ~2,000 counters. Percentiles report the bucket's geometric midpoint.
 */
const GROWTH = 1.01;
const LOG_GROWTH = Math.log(GROWTH);
const BUCKETS = Math.ceil(Math.log(600e6) / LOG_GROWTH) + 1; // up to 10 minutes in µs

export class LatencyHistogram {
  private readonly counts = new Uint32Array(BUCKETS);
  private total = 0;
  private maxUs = 0;
  private sumUs = 0;

  recordMicros(us: number): void {
    const value = Math.max(1, us);
    const index = Math.min(BUCKETS - 1, Math.floor(Math.log(value) / LOG_GROWTH));
    this.counts[index] += 1;
    this.total += 1;
    this.sumUs += value;
    if (value > this.maxUs) this.maxUs = value;
  }

  get count(): number {
    return this.total;
  }

  /** The p-th percentile (0 < p ≤ 100) in ms; NaN when empty. */
  percentileMs(p: number): number {
    if (this.total === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.total));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i += 1) {
      seen += this.counts[i]!;
      if (seen >= rank) return Math.min(this.maxUs, GROWTH ** (i + 0.5)) / 1000;
    }
    return this.maxUs / 1000;
  }

  get maxMs(): number {
    return this.maxUs / 1000;
  }

  get meanMs(): number {
    return this.total === 0 ? Number.NaN : this.sumUs / this.total / 1000;
  }
}
