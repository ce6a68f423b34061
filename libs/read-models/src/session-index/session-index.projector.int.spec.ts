import pg from 'pg';
import type { EventStore } from '#event-store';
import { useTestDatabase } from '../../../../test/support/database.js';
import { newViews, newWriter, writeSession } from '../audit/audit.fixtures.js';
import { SessionIndexProjector } from './session-index.projector.js';

const db = useTestDatabase();
let pool: pg.Pool;
let store: EventStore;
beforeAll(() => {
  ({ pool, store } = db);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const indexed = async (sessionId: string) =>
  (await pool.query(`SELECT version::text FROM session_index WHERE session_id = $1`, [sessionId])).rows[0]?.version;

describe('the session index projector', () => {
  it('coalesces pokes within the debounce window into one pass, and reports no lag from pokes', async () => {
    const views = newViews(store, pool);
    const lags: number[] = [];
    const projector = new SessionIndexProjector(pool, store, views, { debounceMs: 30, onLag: (lag) => lags.push(lag) });
    let passes = 0;
    const catchUp = projector.catchUp.bind(projector);
    projector.catchUp = () => {
      passes += 1;
      return catchUp();
    };
    await writeSession(newWriter(store, views), 'poke-1', 2);
    for (let i = 0; i < 10; i += 1) projector.poke();
    expect(passes).toBe(0);
    // However long the one pass takes on a loaded machine: wait for its row, then count the passes it took.
    for (let i = 0; i < 500 && (await indexed('poke-1')) !== '3'; i += 1) await sleep(10);
    expect(await indexed('poke-1')).toBe('3');
    await sleep(60);
    expect(passes).toBe(1);
    expect(lags).toEqual([]);
    await projector.stop();
  });

  it('reports the lag from the timer tick', async () => {
    const views = newViews(store, pool);
    const lags: number[] = [];
    const projector = new SessionIndexProjector(pool, store, views, { onLag: (lag) => lags.push(lag) });
    await writeSession(newWriter(store, views), 'tick-1', 1);
    projector.start(20);
    for (let i = 0; i < 100 && lags.length === 0; i += 1) await sleep(10);
    await projector.stop();
    expect(lags[0]).toBe(0);
    expect(await indexed('tick-1')).toBe('2');
  });

  it("counts a pass's own work as its busy time, not its waits for the store", async () => {
    // The writer's replica holds the session; the projector's does not, so its pass reads the session from a
    // store that answers its head read (and a tail read, when it makes one) 300 ms late.
    const WAIT_MS = 300;
    await writeSession(newWriter(store, newViews(store, pool)), 'busy-1', 2);
    const late = new Proxy(store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if ((name !== 'head' && name !== 'readStreamData') || typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          await sleep(WAIT_MS);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const passes: number[] = [];
    const projector = new SessionIndexProjector(pool, store, newViews(late, pool), { onPass: (seconds) => passes.push(seconds) });
    const started = performance.now();
    expect(await projector.catchUp()).toBeGreaterThan(0);
    expect(performance.now() - started).toBeGreaterThanOrEqual(WAIT_MS);
    expect(await indexed('busy-1')).toBe('3');
    // The fold, the render and the row of a 3-event session: a few milliseconds, far under the wait inside the pass.
    expect(passes.length).toBeGreaterThan(0);
    expect(passes.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(passes.reduce((a, b) => a + b, 0)).toBeLessThan(WAIT_MS / 3 / 1000);
  });
});
