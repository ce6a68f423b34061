import { type SessionCommand, toSessionStreamId } from '#domain';
import { PlainContent, type SessionKeyring } from '#event-store';
import { createSessionEventStore, SessionViews, SnapshotStore } from '#read-models';
import { useTestDatabase } from '../../../test/support/database.js';
import { testKeyring } from '../../../test/support/master-key.js';
import { eraseSession } from './erase-session.js';
import { executeSessionCommand } from './session-command.js';
import { SessionWriter } from './session-writer.js';

/**
 * The erasure against a writer that is always faster: every time it lists the session's plain content, another
 * append lands before its decision can. Sealed, it needs no second list (what lands after is sealed, and goes
 * with the key); plain, it lists again until its decision lands at the version it listed.
 */
const db = useTestDatabase();
const T0 = 1_800_000_000;

const start = (sessionId: string): SessionCommand => ({ type: 'StartSession', data: { sessionId, title: `${sessionId} title`, createdAt: T0 } });
const rows = (n: number): SessionCommand => ({ type: 'RecordMessages', data: { rows: [{ role: 'user', content: `secret ${n}`, timestamp: T0 + n }] } });

async function partsFor(keyring: SessionKeyring | null) {
  const store = await createSessionEventStore(db.pool, { keyring });
  const views = new SessionViews(store, new SnapshotStore(db.pool), { snapshotEvery: 1000, idleSnapshotMs: 0 });
  return { store, writer: new SessionWriter(store, views) };
}

/** Plain content whose every listing (up to `races` of them) is followed at once by another writer's append. */
class RacedListing extends PlainContent {
  listings = 0;
  constructor(
    pool: ConstructorParameters<typeof PlainContent>[0],
    private readonly racer: SessionWriter,
    private readonly sessionId: string,
    private readonly races: number,
  ) {
    super(pool);
  }
  override async listing(streamId: string) {
    const listed = await super.listing(streamId);
    this.listings += 1;
    if (this.listings <= this.races) await executeSessionCommand(this.racer, this.sessionId, rows(100 + this.listings));
    return listed;
  }
}

describe('an erasure racing a writer that always lands first', () => {
  it('sealed: decides on its first list, whatever lands after it', async () => {
    const keyring = await testKeyring(db.url);
    const own = await partsFor(keyring);
    const other = await partsFor(keyring);
    await executeSessionCommand(own.writer, 'raced-sealed', start('raced-sealed'));
    await executeSessionCommand(own.writer, 'raced-sealed', rows(1));
    const listing = new RacedListing(db.pool, other.writer, 'raced-sealed', Number.POSITIVE_INFINITY);
    const result = await eraseSession(
      { writer: own.writer, keyring, snapshots: new SnapshotStore(db.pool), plainContent: listing },
      { sessionId: 'raced-sealed', reason: 'user request', requestedBy: 'test', at: T0 + 10 },
    );
    expect(listing.listings).toBe(1);
    const events = await db.store.readStream(toSessionStreamId('raced-sealed'));
    expect(events.map((e) => e.type)).toEqual(['SessionStarted', 'MessagesRecorded', 'MessagesRecorded', 'SessionErased']);
    expect(result).toMatchObject({ version: 4, duplicate: false, contentDropped: 0 });
    expect(await keyring.keyFor(toSessionStreamId('raced-sealed'))).toBeNull();
  });

  it('plain: lists again while appends land between its list and its decision, and drops what each landed append holds', async () => {
    const own = await partsFor(null);
    const other = await partsFor(null);
    await executeSessionCommand(own.writer, 'raced-plain', start('raced-plain'));
    await executeSessionCommand(own.writer, 'raced-plain', rows(1));
    const listing = new RacedListing(db.pool, other.writer, 'raced-plain', 3);
    const result = await eraseSession(
      { writer: own.writer, keyring: null, snapshots: new SnapshotStore(db.pool), plainContent: listing },
      { sessionId: 'raced-plain', reason: 'user request', requestedBy: 'test', at: T0 + 10 },
    );
    expect(listing.listings).toBe(4);
    expect(result).toMatchObject({ version: 6, contentDropped: 5 });
    const left = await db.pool.query(`SELECT count(*)::int AS n FROM events WHERE stream_id = $1 AND data::text LIKE '%secret%'`, [toSessionStreamId('raced-plain')]);
    expect(left.rows[0].n).toBe(0);
  });
});
