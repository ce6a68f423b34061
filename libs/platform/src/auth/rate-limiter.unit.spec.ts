import { RateLimiter } from './rate-limiter.js';

describe('rate limiter', () => {
  it('lets a full bucket through, then refuses with the wait, then refills over time', () => {
    let now = 0;
    const limiter = new RateLimiter(3, () => now);
    const take = (key: string) => limiter.take(key, limiter.limitOf(undefined));
    expect([take('k'), take('k'), take('k')]).toEqual([0, 0, 0]);
    expect(take('k')).toBe(20);
    expect(take('other')).toBe(0);
    now += 20_000;
    expect(take('k')).toBe(0);
    expect(take('k')).toBeGreaterThan(0);
  });

  describe('when no default limit is configured', () => {
    it('never refuses a key without a limit of its own', () => {
      const limiter = new RateLimiter(0, () => 0);
      const limit = limiter.limitOf(undefined);
      expect(limit).toBe(0);
      const waits = Array.from({ length: 10_000 }, () => limiter.take('gateway', limit));
      expect(waits.every((wait) => wait === 0)).toBe(true);
    });

    it('still holds a key to its own limit', () => {
      const limiter = new RateLimiter(0, () => 0);
      const limit = limiter.limitOf(2);
      expect([limiter.take('k', limit), limiter.take('k', limit), limiter.take('k', limit)]).toEqual([0, 0, 30]);
    });
  });

  it('lets a key of its own limit 0 through whatever the default', () => {
    const limiter = new RateLimiter(1, () => 0);
    const limit = limiter.limitOf(0);
    expect([limiter.take('k', limit), limiter.take('k', limit), limiter.take('k', limit)]).toEqual([0, 0, 0]);
    expect([limiter.take('other', limiter.limitOf(undefined)), limiter.take('other', limiter.limitOf(undefined))]).toEqual([0, 60]);
  });

  it('gives a key with its own limit a bucket of that size, above the default', () => {
    const limiter = new RateLimiter(1, () => 0);
    const limit = limiter.limitOf(5);
    const waits = Array.from({ length: 6 }, () => limiter.take('big', limit));
    expect(waits).toEqual([0, 0, 0, 0, 0, 12]);
  });
});
