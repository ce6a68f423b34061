import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type SessionEvent, toSessionStreamId } from '#domain';
import { MAX_RUN, queryAcrossSessions } from '#event-store';
import { createSessionEventStore } from '#read-models';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { testKeyring } from '../../../test/support/master-key.js';
import { runIn } from './cli-test.fixture.js';

/**
 * A sealed session whose one append holds more events with content than an import writes at a time: the
 * append is sealed as runs of MAX_RUN (content-seal.ts), one of them across the import's batch boundary, which
 * the import writes and folds whole.
 */
let source: TestDatabase;
let target: TestDatabase;
let spare: TestDatabase;
const dir = mkdtempSync(join(tmpdir(), 'chronicle-runs-'));
const SESSION = 'long-run';
const STREAM = toSessionStreamId(SESSION);
const RUN = 620;

const exchange = (n: number): SessionEvent => ({
  type: 'MessagesRecorded',
  data: { rows: [{ role: 'user', content: `question ${n}`, timestamp: 1_700_000_000 + n }] },
}) as SessionEvent;

async function chain(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    // On Citus, a query across every shard.
    return (await queryAcrossSessions(pool, { text: `SELECT stream_id, version::int, type, data, hash FROM events ORDER BY stream_id, version` })).rows;
  } finally {
    await pool.end();
  }
}

beforeAll(async () => {
  [source, target, spare] = await Promise.all([createTestDatabase(), createTestDatabase(), createTestDatabase()]);
  const pool = new pg.Pool({ connectionString: source.url, max: 2 });
  const keyring = await testKeyring(source.url);
  const store = await createSessionEventStore(pool, { keyring });
  try {
    await store.append(STREAM, [{ type: 'SessionStarted', data: { sessionId: SESSION, title: 'Long run', parentSessionId: null, createdAt: 1_700_000_000 } }], { expectedVersion: 0 });
    await store.append(STREAM, Array.from({ length: RUN }, (_, i) => exchange(i + 1)), { expectedVersion: 1 });
    await store.append(STREAM, [exchange(RUN + 1)], { expectedVersion: RUN + 1 });
  } finally {
    await keyring.close();
    await pool.end();
  }
}, 60_000);
afterAll(async () => {
  await Promise.all([source.drop(), target.drop(), spare.drop()]);
});

describe('chronicle export / import of sealed runs across an import batch', () => {
  it('imports it with equal hashes, the audit passes, and the replay shows the content', async () => {
    const stored = await chain(source.url);
    expect(stored.map((e) => /^2:(\d+)\/(\d+):/.exec(e.data.sealed)?.slice(1, 3).join('/')).slice(1, RUN + 1)).toEqual(
      Array.from({ length: RUN }, (_, i) => `${i % MAX_RUN}/${i < 2 * MAX_RUN ? MAX_RUN : RUN - 2 * MAX_RUN}`),
    );
    const exported = await runIn(source.url, ['export']);
    expect(exported.code).toBe(0);
    const file = join(dir, 'all.ndjson');
    writeFileSync(file, exported.stdout);
    const imported = await runIn(target.url, ['import', file]);
    expect(imported).toMatchObject({ code: 0, stdout: `imported ${RUN + 2} event(s) of 1 stream(s); 0 already stored\n` });
    expect(await chain(target.url)).toEqual(stored);
    const audit = await runIn(target.url, ['audit']);
    expect(audit.code).toBe(0);
    expect(audit.stdout).toContain('every session matches');
    const replay = await runIn(target.url, ['replay', SESSION]);
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain(`question ${RUN - 1}`);
    expect(replay.stdout).toContain(`question ${RUN + 1}`);
  }, 60_000);

  it('refuses a file cut inside the run, naming the stream, and writes nothing of it', async () => {
    const exported = await runIn(source.url, ['export']);
    const cut = join(dir, 'cut.ndjson');
    writeFileSync(cut, exported.stdout.split('\n').slice(0, 300).join('\n'));
    const imported = await runIn(spare.url, ['import', cut]);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain(`stream ${STREAM} ends inside a sealed run at version 300`);
    expect(await chain(spare.url)).toEqual([]);
  }, 60_000);
});
