import { isRetryableStatus, reconnectDelay } from './reconnect-backoff.js';

describe('reconnectDelay', () => {
  it('doubles from the initial delay up to the maximum, drawn from the upper half of each step', () => {
    const options = { initialDelayMs: 100, maxDelayMs: 1_000 };
    expect([0, 1, 2, 3, 4, 10].map((attempt) => reconnectDelay(attempt, options, () => 1))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect([0, 1, 2, 3, 4, 10].map((attempt) => reconnectDelay(attempt, options, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
  });

  it('stays finite for any number of attempts', () => {
    expect(reconnectDelay(10_000, {}, () => 1)).toBe(5_000);
  });

  describe("with the server's retry hint", () => {
    const options = { initialDelayMs: 500, maxDelayMs: 30_000 };

    it('retries first as soon as without it, then doubles from the hint', () => {
      expect([0, 1, 2, 3, 6].map((attempt) => reconnectDelay(attempt, options, () => 1, 2_000))).toEqual([500, 4_000, 8_000, 16_000, 30_000]);
      expect([0, 1, 2].map((attempt) => reconnectDelay(attempt, options, () => 0, 2_000))).toEqual([250, 2_000, 4_000]);
    });

    it('never goes under the initial delay for a smaller hint, nor past the maximum for a larger one', () => {
      expect(reconnectDelay(1, options, () => 1, 10)).toBe(reconnectDelay(1, options, () => 1));
      expect(reconnectDelay(1, options, () => 1, 120_000)).toBe(30_000);
    });
  });
});

describe('isRetryableStatus', () => {
  it('retries timeouts, rate limits and server errors, and nothing that says the request itself was refused', () => {
    expect([408, 425, 429, 500, 502, 503, 504, 599].filter(isRetryableStatus)).toEqual([408, 425, 429, 500, 502, 503, 504, 599]);
    expect([0, 400, 401, 403, 404, 409, 410, 413, 422, 501, 505, 600].filter(isRetryableStatus)).toEqual([]);
  });
});
