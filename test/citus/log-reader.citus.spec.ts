import pg from 'pg';
import { createSessionEventStore } from '#read-models';
import { type EventStore, type LogCursor, START } from '#event-store';
import { LOG_POSITION_COLUMNS, LogReader, type LogRow } from '../../libs/event-store/src/log-reader.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

/**
 * On Citus each page of the log is read on every node that holds shards of `events`, over its own shards, one
 * statement a node (the distributed query cost the nodes ~0.47 ms of CPU a shard, bench/README.md). That read
 * must be the distributed query's, page for page: the same events in the same order and the same cursors, at any
 * page size, and the same count past a cursor. The reader without node pools reads through Citus (the reference).
 */
let database: TestDatabase;
let pool: pg.Pool;
let store: EventStore;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  store = await createSessionEventStore(pool, { live: false });
  // Sessions spread over both workers, appended in an interleaved order, several events an append.
  for (let round = 0; round < 4; round += 1) {
    await Promise.all(
      Array.from({ length: 12 }, (_, s) =>
        store.append(`session-log-${s}`, [
          { type: 'SessionRenamed', data: { title: `r${round}-a`, at: round } },
          { type: 'SessionRenamed', data: { title: `r${round}-b`, at: round } },
        ]),
      ),
    );
  }
});
afterAll(async () => {
  // Closing the store ends its pool.
  await store?.close();
  await database?.drop();
});

type Page = { rows: readonly LogRow[]; checkpoint: LogCursor; more: boolean };
const key = (row: LogRow) => `${row.origin}/${row.transaction_id}/${row.global_position}/${row.stream_id}@${row.version}`;

async function walk(read: (after: LogCursor) => Promise<Page>): Promise<{ rows: string[]; cursors: LogCursor[] }> {
  const rows: string[] = [];
  const cursors: LogCursor[] = [];
  let after = START;
  for (let pages = 0; pages < 1000; pages += 1) {
    const page = await read(after);
    rows.push(...page.rows.map(key));
    cursors.push(page.checkpoint);
    after = page.checkpoint;
    if (page.rows.length === 0) return { rows, cursors };
  }
  throw new Error('the log never ended');
}

describe('the log read on each node over its own shards', () => {
  it('pages exactly as the distributed query does, at every page size, and counts the same', async () => {
    expect(database.engine).toBe('citus');
    const local = (store as unknown as { log: LogReader }).log;
    const distributed = new LogReader(pool, 'citus', null);
    // Both workers hold events (the reads below cover more than one node).
    const origins = new Set((await walk((after) => local.page(LOG_POSITION_COLUMNS, after, 1000))).rows.map((row) => row.split('/')[0]));
    expect(origins.size).toBe(2);

    for (const limit of [1, 5, 17, 1000]) {
      const viaNodes = await walk((after) => local.page(LOG_POSITION_COLUMNS, after, limit));
      const viaCitus = await walk((after) => distributed.page(LOG_POSITION_COLUMNS, after, limit));
      expect(viaNodes.rows).toHaveLength(96);
      expect(new Set(viaNodes.rows).size).toBe(96);
      expect(viaNodes).toEqual(viaCitus);
    }
    for (const cursor of (await walk((after) => distributed.page(LOG_POSITION_COLUMNS, after, 7))).cursors) {
      expect(await local.countPast(cursor, 1_000_000)).toBe(await distributed.countPast(cursor, 1_000_000));
      expect(await local.countPast(cursor, 3)).toBe(await distributed.countPast(cursor, 3));
    }
  });
});
