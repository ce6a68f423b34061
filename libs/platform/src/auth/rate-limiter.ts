/**
 * Token bucket per API key, in process (each replica enforces its share). A key's limit is its own
 * (`key:scopes@N` in CHRONICLE_API_KEYS) or the default (CHRONICLE_RATE_LIMIT_PER_MINUTE); 0 is no limit,
 * the default, because one gateway usually sends every user's traffic with one key. `perMinute` tokens
 * refill continuously; a request that finds the bucket empty is told how long to wait.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly defaultPerMinute: number = 0,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The limit that applies to a key: its own when it has one, else the default; 0 = unlimited. */
  limitOf(ownPerMinute: number | undefined): number {
    return ownPerMinute ?? this.defaultPerMinute;
  }

  /** 0 when allowed, else the seconds to wait before the next request can pass. */
  take(key: string, perMinute: number): number {
    if (perMinute <= 0) return 0;
    const now = this.now();
    const ratePerMs = perMinute / 60_000;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: perMinute, at: now };
      this.buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(perMinute, bucket.tokens + (now - bucket.at) * ratePerMs);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - bucket.tokens) / ratePerMs / 1000);
  }
}
