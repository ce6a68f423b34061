import { Collector } from './cli-test.fixture.js';
import { createProgress, formatDuration, formatRate } from './progress.reporter.js';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('progress', () => {
  it('draws one \\r-rewritten bar on a terminal with count, rate and ETA, then a final line', () => {
    const stream = new Collector();
    const time = clock();
    const progress = createProgress({ stream, tty: true, label: 'export', unit: 'events', total: 1000, now: time.now });
    time.advance(1000);
    progress.tick(250);
    expect(stream.text).toBe('\r\x1b[2Kexport [######..................]  25% 250/1000 events 250/s ETA 3s');
    time.advance(50);
    progress.tick(10); // throttled: redrawn at most every 100 ms
    expect(stream.text.split('\r').length).toBe(2);
    progress.clear();
    expect(stream.text.endsWith('\r\x1b[2K')).toBe(true);
    time.advance(950);
    progress.tick(740);
    progress.done();
    expect(stream.text.endsWith('\r\x1b[2Kexport: 1000 events in 2.0s (500/s)\n')).toBe(true);
  });

  it('prints plain lines at most every plainEveryMs when stderr is not a terminal', () => {
    const stream = new Collector();
    const time = clock();
    const progress = createProgress({ stream, tty: false, label: 'audit', unit: 'sessions', now: time.now, plainEveryMs: 2000 });
    time.advance(1000);
    progress.tick(10, 40);
    time.advance(1500);
    progress.tick(10);
    time.advance(500);
    progress.tick(20);
    progress.done('(0 mismatches)');
    expect(stream.text).toBe(
      'audit: 20/40 sessions (8.0/s ETA 3s)\n' + 'audit: 40 sessions in 3.0s (13/s) (0 mismatches)\n',
    );
    expect(stream.text).not.toContain('\r');
  });

  it('formats durations and rates compactly', () => {
    expect([formatDuration(4.4), formatDuration(75), formatDuration(3725), formatDuration(Infinity)]).toEqual(['4s', '1m15s', '1h02m', '?']);
    expect([formatRate(2.345), formatRate(512.4), formatRate(23_456)]).toEqual(['2.3', '512', '23.5k']);
  });
});
