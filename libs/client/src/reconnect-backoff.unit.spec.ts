import { reconnectDelay } from './reconnect-backoff.js';

describe('reconnectDelay', () => {
  it('doubles from the initial delay up to the maximum, drawn from the upper half of each step', () => {
    const options = { initialDelayMs: 100, maxDelayMs: 1_000 };
    expect([0, 1, 2, 3, 4, 10].map((attempt) => reconnectDelay(attempt, options, () => 1))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect([0, 1, 2, 3, 4, 10].map((attempt) => reconnectDelay(attempt, options, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
  });

  it('stays finite for any number of attempts', () => {
    expect(reconnectDelay(10_000, {}, () => 1)).toBe(5_000);
  });
});
