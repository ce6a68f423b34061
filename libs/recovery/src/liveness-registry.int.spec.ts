import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { LivenessRegistry } from './liveness-registry.js';

let database: TestDatabase;
let pool: pg.Pool;
let registry: LivenessRegistry;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  registry = new LivenessRegistry(pool);
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

const put = (runId: string, at: number, phase?: 'starting' | 'running' | 'cancelling', hostId = 'host-a') =>
  registry.putLease({ runId, sessionId: 's1', hostId, ttlSeconds: 30, phase, at });

describe('run leases', () => {
  it('renew the expiry and keep phaseSince from the first write with that phase', async () => {
    expect(await put('lease-1', 1000)).toMatchObject({ phase: 'running', phaseSince: 1000, expiresAt: 1030, releasedAt: null });
    expect(await put('lease-1', 1020)).toMatchObject({ phase: 'running', phaseSince: 1000, expiresAt: 1050 });
    expect(await put('lease-1', 1025, 'cancelling')).toMatchObject({ phase: 'cancelling', phaseSince: 1025 });
    expect(await put('lease-1', 1040, 'cancelling')).toMatchObject({ phase: 'cancelling', phaseSince: 1025, expiresAt: 1070 });
    expect(await put('lease-1', 1045)).toMatchObject({ phase: 'cancelling', phaseSince: 1025 });
  });

  it('count as alive until they expire', async () => {
    await put('lease-2', 1000);
    expect(await registry.isAlive('lease-2', 1029)).toBe(true);
    expect(await registry.isAlive('lease-2', 1030)).toBe(false);
  });

  it('stop counting once cancelling for over 60 s, while still listed', async () => {
    await registry.putLease({ runId: 'lease-3', sessionId: 's1', hostId: 'host-a', ttlSeconds: 600, phase: 'cancelling', at: 1000 });
    expect(await registry.isAlive('lease-3', 1060)).toBe(true);
    expect(await registry.isAlive('lease-3', 1061)).toBe(false);
    expect((await registry.facts('lease-3')).lease).toMatchObject({ phase: 'cancelling', releasedAt: null });
  });

  it('are released by DELETE but remember their host; a new PUT registers the run again', async () => {
    await put('lease-4', 1000);
    expect(await registry.deleteLease('lease-4', 1005)).toBe(true);
    expect(await registry.deleteLease('lease-4', 1006)).toBe(false);
    expect(await registry.isAlive('lease-4', 1010)).toBe(false);
    expect((await registry.facts('lease-4')).lease).toMatchObject({ hostId: 'host-a', releasedAt: 1005 });
    await put('lease-4', 1011);
    expect(await registry.isAlive('lease-4', 1012)).toBe(true);
  });
});

describe('live streams', () => {
  it('keep a run alive while open, whatever its lease says', async () => {
    expect(await registry.isAlive('stream-1', 1000)).toBe(false);
    expect(await registry.openStream('stream-1', 's1', 1000)).toEqual({ runId: 'stream-1', sessionId: 's1', openedAt: 1000 });
    expect(await registry.openStream('stream-1', 's1', 1005)).toMatchObject({ openedAt: 1000 });
    expect(await registry.isAlive('stream-1', 99_999)).toBe(true);
    expect(await registry.closeStream('stream-1')).toBe(true);
    expect(await registry.closeStream('stream-1')).toBe(false);
    expect(await registry.isAlive('stream-1', 1001)).toBe(false);
  });
});

describe('host boots', () => {
  it('release the leases the host held before and are idempotent', async () => {
    await put('boot-1', 1000, 'running', 'host-b');
    await put('boot-2', 1000, 'running', 'host-b');
    expect(await registry.hostStarted('host-b', 1010)).toEqual({ hostId: 'host-b', startedAt: 1010, releasedLeases: 2 });
    expect(await registry.isAlive('boot-1', 1011)).toBe(false);
    await put('boot-3', 1012, 'running', 'host-b');
    expect(await registry.hostStarted('host-b', 1010)).toEqual({ hostId: 'host-b', startedAt: 1010, releasedLeases: 0 });
    expect(await registry.hostStarted('host-b', 900)).toEqual({ hostId: 'host-b', startedAt: 1010, releasedLeases: 0 });
    expect(await registry.isAlive('boot-3', 1013)).toBe(true);
  });

  it('are reported for the host named in the run latest lease', async () => {
    await registry.hostStarted('host-c', 500);
    await registry.hostStarted('host-d', 700);
    await put('moved', 1000, 'running', 'host-c');
    expect((await registry.facts('moved')).hostStartedAt).toBe(500);
    await put('moved', 1001, 'running', 'host-d');
    expect(await registry.facts('moved')).toMatchObject({ lease: { hostId: 'host-d' }, hostStartedAt: 700, stream: null });
    expect(await registry.facts('never-seen')).toEqual({ runId: 'never-seen', stream: null, lease: null, hostStartedAt: null });
  });
});
