import { toSessionStreamId } from '#domain';
import { SessionViews, SnapshotStore } from '#read-models';
import { useTestDatabase } from '../../../test/support/database.js';
import { compressSession } from './compress-session.js';
import { executeSessionCommand } from './session-command.js';
import { SessionWriter } from './session-writer.js';

const db = useTestDatabase();
const T0 = 1_800_000_000;

function service() {
  const views = new SessionViews(db.store, new SnapshotStore(db.pool), { snapshotEvery: 1000, idleSnapshotMs: 0 });
  const writer = new SessionWriter(db.store, views);
  const start = (sessionId: string, parentSessionId: string | null = null) =>
    executeSessionCommand(writer, sessionId, { type: 'StartSession', data: { sessionId, title: null, parentSessionId, createdAt: T0 } });
  return { views, writer, start };
}

const typesOf = async (sessionId: string) => (await db.store.readStream(toSessionStreamId(sessionId))).map((event) => event.type);

describe('compressing a session', () => {
  it('archives the parent and starts the child with the parent link', async () => {
    const { views, writer, start } = service();
    await start('cmp-parent');
    const result = await compressSession(writer, views, 'cmp-parent', { childSessionId: 'cmp-child', at: T0 + 5 }, { requestId: 'r1' });
    expect(result).toEqual({ sessionId: 'cmp-parent', version: 2, appended: 1, duplicate: false, childSessionId: 'cmp-child', childVersion: 1 });
    expect(await typesOf('cmp-parent')).toEqual(['SessionStarted', 'SessionCompressed']);
    const [child] = await db.store.readStream(toSessionStreamId('cmp-child'));
    expect(child).toMatchObject({ type: 'SessionStarted', data: { sessionId: 'cmp-child', parentSessionId: 'cmp-parent', createdAt: T0 + 5 } });
    expect(child.metadata).toEqual({ requestId: 'r1' });
  });

  it('completes the child on a retry after only the parent was written', async () => {
    const { views, writer, start } = service();
    await start('cmp-half');
    await executeSessionCommand(writer, 'cmp-half', { type: 'CompressSession', data: { childSessionId: 'cmp-half-child', at: T0 } });
    const retry = await compressSession(writer, views, 'cmp-half', { childSessionId: 'cmp-half-child', at: T0 });
    expect(retry).toMatchObject({ appended: 0, duplicate: true, childVersion: 1 });
    expect(await typesOf('cmp-half-child')).toEqual(['SessionStarted']);
    const again = await compressSession(writer, views, 'cmp-half', { childSessionId: 'cmp-half-child', at: T0 });
    expect(again).toMatchObject({ version: 2, duplicate: true, childVersion: 1 });
  });

  it('refuses a child that exists and is not this parent\'s continuation, writing nothing', async () => {
    const { views, writer, start } = service();
    await start('cmp-own');
    await start('cmp-stranger');
    await expect(compressSession(writer, views, 'cmp-own', { childSessionId: 'cmp-stranger', at: T0 })).rejects.toMatchObject({
      name: 'DomainError',
      code: 'SESSION_ALREADY_EXISTS',
    });
    expect(await typesOf('cmp-own')).toEqual(['SessionStarted']);
    expect(await typesOf('cmp-stranger')).toEqual(['SessionStarted']);
  });
});
