import { RateLimiter } from './rate-limiter.js';

describe('rate limiter', () => {
  it('lets a full bucket through, then refuses with the wait, then refills over time', () => {
    let now = 0;
    const limiter = new RateLimiter(3, () => now);
    expect([limiter.take('k'), limiter.take('k'), limiter.take('k')]).toEqual([0, 0, 0]);
    expect(limiter.take('k')).toBe(20);
    expect(limiter.take('other')).toBe(0);
    now += 20_000;
    expect(limiter.take('k')).toBe(0);
    expect(limiter.take('k')).toBeGreaterThan(0);
  });
});
