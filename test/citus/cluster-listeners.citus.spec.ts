import pg from 'pg';
import { NOTIFY_CHANNEL } from '#read-models';
import { ClusterListeners } from '../../apps/session-api/src/live/cluster-listeners.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { pollUntil } from '../support/poll.js';

/**
 * A replica hears the appends of every node (an append notifies on the worker that ran it) from the moment its
 * start is over: `start()` resolves once each other node's LISTEN is in place, not when the node list is read.
 */
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

describe('cluster listeners', () => {
  it('hear a NOTIFY sent on another node right after start() resolved', async () => {
    const [worker1, worker2] = database.workerUrls;
    const pool = new pg.Pool({ connectionString: worker1, max: 2 });
    // Connected before the listeners start: the NOTIFY below leaves the moment start() resolves.
    const other = new pg.Client({ connectionString: worker2 });
    await other.connect();
    const heard: string[] = [];
    const listeners = new ClusterListeners(pool, (payload) => heard.push(payload), () => undefined);
    try {
      await listeners.start();
      await other.query(`NOTIFY ${NOTIFY_CHANNEL}, 'from-worker2'`);
      // A notification sent before the LISTEN is lost for good: waiting longer would not bring it.
      await pollUntil('the notification from worker2', () => heard, (seen) => seen.includes('from-worker2'), { timeoutMs: 3000 });
    } finally {
      await listeners.stop();
      await other.end();
      await pool.end();
    }
  });
});
