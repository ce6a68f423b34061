import { isRunAlive, leaseStatus, type LeaseFact, noLiveness } from './liveness-facts.js';

const lease = (overrides: Partial<LeaseFact> = {}): LeaseFact => ({
  hostId: 'h1',
  phase: 'running',
  expiresAt: 2000,
  phaseSince: 1000,
  releasedAt: null,
  ...overrides,
});

describe('a run lease', () => {
  it('counts as alive until it expires', () => {
    expect(leaseStatus(lease(), 1999.9)).toBe('alive');
    expect(leaseStatus(lease(), 2000)).toBe('expired');
  });

  it('no longer counts once the worker released it', () => {
    expect(leaseStatus(lease({ releasedAt: 1500 }), 1600)).toBe('released');
  });

  it('counts while cancelling for up to 60 s, then is listed but not alive', () => {
    const cancelling = lease({ phase: 'cancelling', phaseSince: 1500 });
    expect(leaseStatus(cancelling, 1560)).toBe('alive');
    expect(leaseStatus(cancelling, 1560.5)).toBe('stale_cancelling');
  });
});

describe('a run', () => {
  it('is alive while its live stream is open, whatever its lease says', () => {
    expect(isRunAlive({ ...noLiveness('r1'), stream: { openedAt: 1000 }, lease: lease({ releasedAt: 1 }) }, 5000)).toBe(true);
  });

  it('is alive with a lease that counts and gone without one', () => {
    expect(isRunAlive({ ...noLiveness('r1'), lease: lease() }, 1500)).toBe(true);
    expect(isRunAlive({ ...noLiveness('r1'), lease: lease({ phase: 'cancelling', phaseSince: 1000 }) }, 1500)).toBe(false);
    expect(isRunAlive(noLiveness('r1'), 1500)).toBe(false);
  });
});
