import pg from 'pg';
import { bearer, KEYS } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { newTally, sendUntilAcknowledged } from './support/retrying-client.js';
import { report, SCALE, SUITE_TIMEOUT_MS } from './support/scale.js';
import { ServiceUnderTest } from './support/service.js';

let database: TestDatabase;
const replicas: ServiceUnderTest[] = [];
beforeAll(async () => {
  database = await createTestDatabase();
  for (let i = 0; i < 2; i += 1) replicas.push(await ServiceUnderTest.start(database.url, { CHRONICLE_RECOVERY_INTERVAL_MS: '250' }));
}, 60_000);
afterAll(async () => {
  for (const replica of replicas) await replica.stop();
  await database?.drop();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function decisionsPerRun(): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ run_id: string; n: number }>(
      `SELECT data->>'runId' AS run_id, count(*)::int AS n FROM events
        WHERE type IN ('TurnInterrupted', 'TurnRecoveredFromAgentStore') GROUP BY 1`,
    );
    return new Map(rows.map((row) => [row.run_id, row.n]));
  } finally {
    await client.end();
  }
}

async function listSessions(base: string): Promise<string[]> {
  const listed: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `/v1/sessions?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = (await fetch(`${base}${query}`, { headers: bearer(KEYS.read) }).then((r) => r.json())) as {
      items: { sessionId: string }[];
      nextCursor: string | null;
    };
    listed.push(...page.items.map((item) => item.sessionId));
    cursor = page.nextCursor;
  } while (cursor);
  return listed;
}

describe('two replicas on one database, both running the recovery supervisor', () => {
  it(
    'decide each stale turn exactly once, and the session index lists every session once',
    async () => {
      const tally = newTally();
      const stale = Math.floor(Date.now() / 1000) - 120;
      const ids = Array.from({ length: SCALE.staleTurns }, (_, i) => `replica-${i}`);
      // Written through both replicas, in parallel, while both sweep.
      for (let first = 0; first < ids.length; first += 10) {
        await Promise.all(
          ids.slice(first, first + 10).map(async (id, i) => {
            const base = () => replicas[(first + i) % 2].base;
            await sendUntilAcknowledged(base, '/v1/sessions', { sessionId: id, createdAt: stale }, tally);
            await sendUntilAcknowledged(base, `/v1/sessions/${id}/submissions`, { runId: `${id}-run`, text: 'hello?', submittedAt: stale }, tally);
          }),
        );
      }
      const deadline = Date.now() + 60_000;
      let decided = await decisionsPerRun();
      while (decided.size < ids.length && Date.now() < deadline) {
        await pause(250);
        decided = await decisionsPerRun();
      }
      // A few more sweeps of both replicas over sessions already decided.
      await pause(1_000);
      decided = await decisionsPerRun();
      const twice = [...decided].filter(([, n]) => n !== 1);
      // The index is an async projection: give it a moment to catch up, then it must list each session once.
      let listed = await listSessions(replicas[1].base);
      for (let i = 0; i < 40 && listed.length < ids.length; i += 1) {
        await pause(250);
        listed = await listSessions(replicas[1].base);
      }
      report('replicas', { replicas: 2, staleTurns: ids.length, decided: decided.size, decidedTwice: twice.length, listed: listed.length });
      expect(decided.size).toBe(ids.length);
      expect(twice).toEqual([]);
      expect([...listed].sort()).toEqual([...ids].sort());
      expect([tally.serverErrors, tally.unexpected]).toEqual([0, []]);
    },
    SUITE_TIMEOUT_MS,
  );
});
