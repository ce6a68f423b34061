import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createSessionEventStore } from '#read-models';
import { toSessionStreamId } from '#domain';
import { chainHash, queryAcrossSessions } from '#event-store';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { appendGolden, goldenNames, runIn, runWith } from './cli-test.fixture.js';
import { TEST_MASTER_KEY } from '../../../test/support/master-key.js';

let source: TestDatabase;
let target: TestDatabase;
let spare: TestDatabase;
const dir = mkdtempSync(join(tmpdir(), 'chronicle-cli-'));
const file = join(dir, 'all.ndjson');

/** A query across sessions (on Citus, every shard) on the database at `url`. */
async function rows(url: string, sql: string) {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    return (await queryAcrossSessions(pool, { text: sql })).rows;
  } finally {
    await pool.end();
  }
}
const chain = (url: string) => rows(url, `SELECT stream_id, version::int, type, data, metadata, hash FROM events ORDER BY stream_id, version`);
const lines = (text: string) => text.trim().split('\n').map((line) => JSON.parse(line));

beforeAll(async () => {
  [source, target, spare] = await Promise.all([createTestDatabase(), createTestDatabase(), createTestDatabase()]);
  for (const [i, name] of goldenNames().entries()) await appendGolden(source.url, name, `s${i}-${name}`);
});
afterAll(async () => {
  await Promise.all([source.drop(), target.drop(), spare.drop()]);
});

describe('chronicle export / import', () => {
  it('exports every event in stream order with versions and hashes, then imports it into an empty database with equal hashes', async () => {
    const exported = await runIn(source.url, ['export']);
    expect(exported.code).toBe(0);
    writeFileSync(file, exported.stdout);
    const events = lines(exported.stdout);
    const stored = await chain(source.url);
    expect(events).toHaveLength(stored.length);
    expect(events[0]).toEqual({
      sessionId: stored[0].stream_id.slice('session-'.length),
      streamId: stored[0].stream_id,
      version: 1,
      type: stored[0].type,
      data: stored[0].data,
      metadata: stored[0].metadata,
      hash: stored[0].hash,
      recordedAt: expect.any(Number),
    });
    // Epoch seconds, as the API answers (export-api.e2e.spec.ts holds them equal): appended moments ago.
    expect(Math.abs(events[0].recordedAt - Date.now() / 1000)).toBeLessThan(600);
    expect(exported.stderr).toMatch(new RegExp(`export: ${stored.length} events`));

    const imported = await runIn(target.url, ['import', file]);
    expect(imported).toMatchObject({ code: 0, stdout: `imported ${stored.length} event(s) of 3 stream(s); 0 already stored\n` });
    expect(await chain(target.url)).toEqual(stored);
    expect(await rows(target.url, `SELECT count(*)::int AS n FROM session_index`)).toEqual([{ n: 3 }]);

    const audit = await runIn(target.url, ['audit']);
    expect(audit.stdout).toContain('every session matches');
    expect(audit.code).toBe(0);
  });

  it('imports the same file twice without adding anything', async () => {
    const before = await chain(target.url);
    const again = await runIn(target.url, ['import', file]);
    expect(again).toMatchObject({ code: 0, stdout: `imported 0 event(s) of 3 stream(s); ${before.length} already stored\n` });
    expect(await chain(target.url)).toEqual(before);
  });

  it('exports one session with --session, and imports a continuation of a stream from its stored head', async () => {
    const [first] = lines((await runIn(source.url, ['export'])).stdout);
    const one = lines((await runIn(source.url, ['export', '--session', first.sessionId])).stdout);
    expect(new Set(one.map((e) => e.streamId))).toEqual(new Set([first.streamId]));
    const head = join(dir, 'head.ndjson');
    const tail = join(dir, 'tail.ndjson');
    writeFileSync(head, one.slice(0, 5).map((e) => JSON.stringify(e)).join('\n'));
    writeFileSync(tail, one.slice(3).map((e) => JSON.stringify(e)).join('\n'));
    expect((await runIn(spare.url, ['import', tail])).stderr).toMatch(/version 4: the file continues the stream from version 4 but the database holds only 0/);
    expect((await runIn(spare.url, ['import', head])).code).toBe(0);
    const continued = await runIn(spare.url, ['import', tail]);
    expect(continued).toMatchObject({ code: 0, stdout: `imported ${one.length - 5} event(s) of 1 stream(s); 2 already stored\n` });
    expect(await chain(spare.url)).toEqual((await chain(source.url)).filter((e) => e.stream_id === first.streamId));
  });

  it('refuses a file with one edited event (exit 1, naming stream and version) and writes nothing', async () => {
    const events = lines(readFileSync(file, 'utf8'));
    const victim = events.findIndex((e) => e.version === 3);
    events[victim] = { ...events[victim], data: { ...events[victim].data, edited: true } };
    const edited = join(dir, 'edited.ndjson');
    writeFileSync(edited, events.map((e) => JSON.stringify(e)).join('\n'));
    const fresh = await createTestDatabase();
    try {
      const refused = await runIn(fresh.url, ['import', edited]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`refusing ${edited}: nothing was imported`);
      expect(refused.stderr).toContain(`stream ${events[victim].streamId} version 3: hash does not follow the chain`);
      expect(await chain(fresh.url)).toEqual([]);
    } finally {
      await fresh.drop();
    }
  });

  it('refuses a re-hashed file whose events conflict with the stored ones', async () => {
    const events = lines(readFileSync(file, 'utf8')).filter((e, _, all) => e.streamId === all[0].streamId);
    let previous = '';
    const forged = events.map((e) => {
      const data = e.version === 2 ? { ...e.data, forged: true } : e.data;
      previous = chainHash(previous, e.version, e.type, data);
      return { ...e, data, hash: previous };
    });
    const path = join(dir, 'forged.ndjson');
    writeFileSync(path, forged.map((e) => JSON.stringify(e)).join('\n'));
    const before = await chain(target.url);
    const refused = await runIn(target.url, ['import', path]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`stream ${events[0].streamId} version ${events.length}: conflicts with the stored event`));
    expect(await chain(target.url)).toEqual(before);
  });

  it('carries a __proto__ and a constructor key of event data as data, byte for byte (issue 27)', async () => {
    const [from, to] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    const pool = new pg.Pool({ connectionString: from.url, max: 1 });
    const store = await createSessionEventStore(pool);
    try {
      const payload = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"text":"a"}');
      await store.append(toSessionStreamId('proto'), [
        { type: 'SessionStarted', data: { sessionId: 'proto', title: null, parentSessionId: null, createdAt: 1 } },
        { type: 'JournalEventRecorded', data: { runId: 'r', seq: 1, event: 'token', payload, createdAt: 2 } },
      ]);
      const exported = await runIn(from.url, ['export']);
      expect(exported.stdout).toContain('"payload":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"text":"a"}');
      const path = join(dir, 'proto.ndjson');
      writeFileSync(path, exported.stdout);
      expect(await runIn(to.url, ['import', path])).toMatchObject({ code: 0, stdout: 'imported 2 event(s) of 1 stream(s); 0 already stored\n' });
      const texts = (url: string) => rows(url, `SELECT version::int, data::text, hash FROM events ORDER BY version`);
      expect(await texts(to.url)).toEqual(await texts(from.url));
      expect((await runIn(to.url, ['audit'])).code).toBe(0);
    } finally {
      await store.close();
      await Promise.all([from.drop(), to.drop()]);
    }
  });

  it("refuses, before writing anything, a file whose later stream carries a data key a plain store cannot take", async () => {
    const events = lines((await runIn(source.url, ['export'])).stdout);
    const streams = [...new Set(events.map((event) => event.streamId as string))];
    const firstOfLast = events.find((event) => event.streamId === streams.at(-1) && event.version === 1);
    firstOfLast.dataKey = randomBytes(32).toString('base64');
    const keyed = join(dir, 'keyed.ndjson');
    writeFileSync(keyed, `${events.map((event) => JSON.stringify(event)).join('\n')}\n`);
    const fresh = await createTestDatabase();
    try {
      const refused = await runWith({ DATABASE_URL: fresh.url, CHRONICLE_MASTER_KEY: TEST_MASTER_KEY, CHRONICLE_ENCRYPTION: 'off' }, ['import', keyed]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('nothing was imported');
      expect(refused.stderr).toContain('CHRONICLE_ENCRYPTION=off');
      expect(await rows(fresh.url, 'SELECT count(*)::int AS n FROM events')).toEqual([{ n: 0 }]);
    } finally {
      await fresh.drop();
    }
  });

  it('answers exit 1 for a line that is not an event, and 2 for a missing file', async () => {
    const bad = join(dir, 'bad.ndjson');
    writeFileSync(bad, '{"streamId":"session-x","version":1}\n');
    expect(await runIn(target.url, ['import', bad])).toMatchObject({ code: 1, stderr: expect.stringContaining('line 1: type must be') });
    expect(await runIn(target.url, ['import', join(dir, 'missing.ndjson')])).toMatchObject({ code: 2, stderr: expect.stringContaining('cannot read') });
  });
});
