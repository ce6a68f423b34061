import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { runChat, verifyChats } from './support/chat-workload.js';
import { newTally } from './support/retrying-client.js';
import { report, SCALE, SUITE_TIMEOUT_MS } from './support/scale.js';
import { ServiceUnderTest } from './support/service.js';

let database: TestDatabase;
let service: ServiceUnderTest;
beforeAll(async () => {
  database = await createTestDatabase();
  service = await ServiceUnderTest.start(database.url);
});
afterAll(async () => {
  await service?.stop();
  await database?.drop();
});

/**
 * Half the journal batches are sent relaxed: a crash of the service (not of PostgreSQL) loses nothing
 * acknowledged, relaxed or not, since PostgreSQL holds every commit it acknowledged to the service.
 */
describe('when the service is killed with SIGKILL under load, again and again', () => {
  it(
    'keeps every acknowledged submission, settle and (runId, seq) exactly once, relaxed tokens included, and every audit matches',
    async () => {
      const tally = newTally();
      let done = false;
      const chats = Promise.all(
        Array.from({ length: SCALE.clients }, (_, client) => runChat(() => service.base, `crash-${client}`, { ...SCALE, relaxedTokens: true }, tally)),
      ).finally(() => (done = true));
      let crashes = 0;
      while (crashes < SCALE.crashes && !done) {
        // Let some writes be acknowledged (and some be in flight) before each kill.
        const target = tally.acknowledged + SCALE.clients * 3;
        while (tally.acknowledged < target && !done) await new Promise((resolve) => setTimeout(resolve, 20));
        if (done) break;
        service.kill9();
        crashes += 1;
        await new Promise((resolve) => setTimeout(resolve, 150));
        await service.restart();
      }
      const acked = await chats;
      const verdict = await verifyChats(database.url, service.base, acked);
      report('crash', { ...verdict, crashes, requests: tally.acknowledged, retries: tally.retries, serverErrors: tally.serverErrors });
      expect(crashes).toBe(SCALE.crashes);
      expect(verdict.acknowledgedEvents).toBe(SCALE.clients * SCALE.runsPerClient * (SCALE.eventsPerRun + 2));
      expect(verdict).toMatchObject({ losses: 0, duplicates: 0, auditMismatches: 0 });
      expect([tally.serverErrors, tally.hangs, tally.unexpected]).toEqual([0, 0, []]);
    },
    SUITE_TIMEOUT_MS,
  );
});
