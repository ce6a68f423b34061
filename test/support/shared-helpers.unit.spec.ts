import { metricValue } from './metrics.js';
import { pollUntil } from './poll.js';
import { parseEvents } from './server-sent-events.js';

describe('pollUntil', () => {
  it('answers the first value that is done', async () => {
    let n = 0;
    expect(await pollUntil('n to reach 3', () => ++n, (value) => value >= 3, { intervalMs: 1 })).toBe(3);
  });

  it('fails past its timeout, naming what it waited for and the last value seen', async () => {
    await expect(pollUntil('the answer', () => ({ status: 'running' }), (value) => value.status === 'done', { timeoutMs: 30, intervalMs: 5 })).rejects.toThrow(
      'waited 30 ms for the answer; last seen: {"status":"running"}',
    );
  });

  it('fails at once when the probe throws', async () => {
    const started = Date.now();
    await expect(pollUntil('nothing', () => Promise.reject(new Error('the service exited')))).rejects.toThrow('the service exited');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('the test clients of the service', () => {
  it('read one metric series by its name and labels', () => {
    const text = '# TYPE x counter\nx_total{result="match"} 3\nx_total{result="mismatch"} 1\nx_total_other 9\ngauge 0.5\n';
    expect([metricValue(text, 'x_total{result="mismatch"}'), metricValue(text, 'gauge'), metricValue(text, 'x_total')]).toEqual([1, 0.5, undefined]);
  });

  it('parse the complete events of a stream, leaving out comments and an unfinished one', () => {
    const text = ': heartbeat\n\nid: 2\nevent: transcript\ndata: {"version":2}\n\nevent: patch\ndata: {"a"';
    expect(parseEvents(text)).toEqual([{ event: 'transcript', data: '{"version":2}', id: '2' }]);
  });
});
