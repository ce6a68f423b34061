import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type SessionEvent, toSessionStreamId } from '#domain';
import { chainHash, MAX_RUN, queryAcrossSessions } from '#event-store';
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
/** Events of the second, short session. */
const SHORT = 4;

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
    // A second session, after the long one in an export: a start and one run.
    const short = toSessionStreamId(`${SESSION}-short`);
    await store.append(short, [{ type: 'SessionStarted', data: { sessionId: `${SESSION}-short`, title: 'Short', parentSessionId: null, createdAt: 1_700_000_000 } }, ...[1, 2, 3].map(exchange)], { expectedVersion: 0 });
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
    const full = Math.floor(RUN / MAX_RUN) * MAX_RUN;
    expect(stored.map((e) => /^2:(\d+)\/(\d+):/.exec(e.data.sealed)?.slice(1, 3).join('/')).slice(1, RUN + 1)).toEqual(
      Array.from({ length: RUN }, (_, i) => `${i % MAX_RUN}/${i < full ? MAX_RUN : RUN - full}`),
    );
    const exported = await runIn(source.url, ['export']);
    expect(exported.code).toBe(0);
    const file = join(dir, 'all.ndjson');
    writeFileSync(file, exported.stdout);
    const imported = await runIn(target.url, ['import', file]);
    expect(imported).toMatchObject({ code: 0, stdout: `imported ${RUN + 2 + SHORT} event(s) of 2 stream(s); 0 already stored\n` });
    expect(await chain(target.url)).toEqual(stored);
    const audit = await runIn(target.url, ['audit']);
    expect(audit.code).toBe(0);
    expect(audit.stdout).toContain('every session matches');
    const replay = await runIn(target.url, ['replay', SESSION]);
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain(`question ${RUN - 1}`);
    expect(replay.stdout).toContain(`question ${RUN + 1}`);
  }, 60_000);

  it('refuses, before writing anything, a file one of whose streams is cut inside a run', async () => {
    const lines = (await runIn(source.url, ['export'])).stdout.trim().split('\n');
    // The other session whole first, then the long one cut inside its second run.
    const cut = join(dir, 'cut.ndjson');
    writeFileSync(cut, [...lines.slice(-SHORT), ...lines.slice(0, 100)].join('\n'));
    const imported = await runIn(spare.url, ['import', cut]);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain(`stream ${STREAM} version 100: the file ends inside the sealed run that began at version 66 (member 35 of ${MAX_RUN} missing)`);
    expect(imported.stderr).toContain('nothing was imported');
    expect(await chain(spare.url)).toEqual([]);
    // A member out of place, its chain hashed again over the edit (the chain alone would not catch it): refused at it.
    const events = lines.slice(0, 70).map((line) => JSON.parse(line) as { version: number; type: string; data: { sealed: string }; hash: string });
    expect(events[11].data.sealed).toMatch(/^2:10\//);
    events[11].data.sealed = events[11].data.sealed.replace(/^2:10\//, '2:11/');
    for (let i = 11; i < events.length; i += 1) events[i].hash = chainHash(events[i - 1].hash, events[i].version, events[i].type, events[i].data);
    const moved = join(dir, 'moved.ndjson');
    writeFileSync(moved, events.map((event) => JSON.stringify(event)).join('\n'));
    const refused = await runIn(spare.url, ['import', moved]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`stream ${STREAM} version 12: breaks the sealed run that began at version 2 (member 10 of ${MAX_RUN} expected)`);
    expect(await chain(spare.url)).toEqual([]);
  }, 60_000);

  it('imports a file whose streams interleave inside a run, every run whole', async () => {
    const lines = (await runIn(source.url, ['export'])).stdout.trim().split('\n');
    // The long session up to the middle of its first run, the other one whole, then the rest of the long one.
    const file = join(dir, 'interleaved.ndjson');
    writeFileSync(file, [...lines.slice(0, 30), ...lines.slice(-SHORT), ...lines.slice(30, -SHORT)].join('\n'));
    const imported = await runIn(spare.url, ['import', file]);
    expect(imported).toMatchObject({ code: 0, stdout: `imported ${RUN + 2 + SHORT} event(s) of 2 stream(s); 0 already stored\n` });
    expect(await chain(spare.url)).toEqual(await chain(source.url));
    expect((await runIn(spare.url, ['audit'])).code).toBe(0);
  }, 60_000);
});
