import { DatabaseReachability } from './database-reachability.js';

function reachability() {
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const changes: boolean[] = [];
  let now = 1_000;
  const subject = new DatabaseReachability({
    log: (level, fields, message) => lines.push({ level, message, fields: { ...fields } }),
    onChange: (reachable) => changes.push(reachable),
    clock: () => now,
  });
  return { subject, lines, changes, advance: (ms: number) => (now += ms) };
}

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('the database reachability state', () => {
  it('starts reachable and logs nothing while the database answers', () => {
    const { subject, lines } = reachability();
    subject.reached();
    subject.reached();
    expect(subject.reachable).toBe(true);
    expect(lines).toEqual([]);
  });

  it('takes a wait for a busy pool that ran out for no outage (answered 503, but the database answers the others)', () => {
    const { subject, lines, changes } = reachability();
    subject.unreachable('request', new Error("the commit's outcome is unknown", { cause: new Error('timeout exceeded when trying to connect') }));
    expect(subject.absorbs('session index projector', new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect([subject.reachable, lines, changes]).toEqual([true, [], []]);
    // A connection that could not be made in time is one.
    subject.unreachable('request', new Error('Connection terminated due to connection timeout'));
    expect(subject.reachable).toBe(false);
  });

  describe('during an outage', () => {
    it('logs the first failure only, with its source and error', () => {
      const { subject, lines, changes } = reachability();
      for (let i = 0; i < 50; i += 1) subject.unreachable(i % 2 ? 'request' : 'session index projector', refused);
      expect(subject.reachable).toBe(false);
      expect(lines).toEqual([
        { level: 'warn', message: 'database unreachable', fields: { source: 'session index projector', err: refused.message } },
      ]);
      expect(changes).toEqual([false]);
    });

    it('logs the recovery once, with how long it lasted, how many failures and where', () => {
      const { subject, lines, changes, advance } = reachability();
      subject.unreachable('pool', refused);
      advance(2_500);
      subject.unreachable('request', refused);
      subject.unreachable('request', refused);
      subject.reached();
      subject.reached();
      expect(lines.slice(1)).toEqual([
        { level: 'info', message: 'database reachable again', fields: { downSeconds: 2.5, failures: 3, sources: ['pool', 'request'] } },
      ]);
      expect(changes).toEqual([false, true]);
      expect(subject.reachable).toBe(true);
    });

    it('is not ended by the answer to a check sent before it began (read one turn after the first failure)', () => {
      const { subject, lines, changes, advance } = reachability();
      const probeSent = subject.now();
      advance(5);
      subject.unreachable('pool', refused);
      subject.reached(probeSent);
      expect(subject.reachable).toBe(false);
      subject.unreachable('live listener', refused);
      const probeAfter = subject.now();
      advance(300);
      subject.reached(probeAfter);
      expect(lines.map((line) => line.message)).toEqual(['database unreachable', 'database reachable again']);
      expect(changes).toEqual([false, true]);
    });

    it('logs a second outage as a new change of state', () => {
      const { subject, lines } = reachability();
      subject.unreachable('pool', refused);
      subject.reached();
      subject.unreachable('pool', refused);
      expect(lines.map((line) => line.message)).toEqual(['database unreachable', 'database reachable again', 'database unreachable']);
    });
  });

  it('absorbs an unreachable database for a loop\'s error callback, and leaves any other error to it', () => {
    const { subject, lines } = reachability();
    expect(subject.absorbs('recovery supervisor', new Error('syntax error at or near "x"'))).toBe(false);
    expect(subject.reachable).toBe(true);
    expect(subject.absorbs('recovery supervisor', new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(subject.reachable).toBe(false);
    expect(lines).toHaveLength(1);
  });
});
