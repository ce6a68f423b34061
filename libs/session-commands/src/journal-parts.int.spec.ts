import { toSessionStreamId } from '#domain';
import { SessionViews, SnapshotStore } from '#read-models';
import { useTestDatabase } from '../../../test/support/database.js';
import { recordJournalParts } from './journal-parts.js';
import { executeSessionCommand } from './session-command.js';
import { SessionWriter } from './session-writer.js';

const db = useTestDatabase();
const T0 = 1_800_000_000;
const token = (seq: number) => ({ seq, event: 'token', payload: { text: `t${seq}` }, createdAt: T0 + seq });

async function turn(sessionId: string) {
  const views = new SessionViews(db.store, new SnapshotStore(db.pool), { snapshotEvery: 1000, idleSnapshotMs: 0 });
  const writer = new SessionWriter(db.store, views);
  await executeSessionCommand(writer, sessionId, { type: 'StartSession', data: { sessionId, title: null, parentSessionId: null, createdAt: T0 } });
  await executeSessionCommand(writer, sessionId, { type: 'SubmitMessage', data: { runId: 'run', text: 'go', submittedAt: T0 } });
  return writer;
}

describe('journal deliveries written together', () => {
  it('answers each part as if applied alone in order: repeats count for the first part that holds the seq', async () => {
    const writer = await turn('parts-1');
    await executeSessionCommand(writer, 'parts-1', { type: 'RecordJournalEvents', data: { runId: 'run', events: [token(1)] } });
    const answers = await recordJournalParts(writer, 'parts-1', 'run', [[token(1), token(2)], [token(2), token(3)], [token(1)], [token(4)]]);
    expect(answers).toEqual([
      { sessionId: 'parts-1', version: 4, appended: 1, duplicate: false },
      { sessionId: 'parts-1', version: 5, appended: 1, duplicate: false },
      { sessionId: 'parts-1', version: 5, appended: 0, duplicate: true },
      { sessionId: 'parts-1', version: 6, appended: 1, duplicate: false },
    ]);
    const stored = await db.store.readStream(toSessionStreamId('parts-1'));
    expect(stored.filter((e) => e.type === 'JournalEventRecorded').map((e) => (e.data as { seq: number }).seq)).toEqual([1, 2, 3, 4]);
    // The same parts again: every one a duplicate at the head.
    const again = await recordJournalParts(writer, 'parts-1', 'run', [[token(2)], [token(3), token(4)]]);
    expect(again).toEqual([
      { sessionId: 'parts-1', version: 6, appended: 0, duplicate: true },
      { sessionId: 'parts-1', version: 6, appended: 0, duplicate: true },
    ]);
  });

  it('says durable: false on the parts that appended, when the write was relaxed', async () => {
    const writer = await turn('parts-2');
    const answers = await recordJournalParts(writer, 'parts-2', 'run', [[token(1)], [token(1)], [token(2)]], { durability: 'relaxed' });
    expect(answers).toEqual([
      { sessionId: 'parts-2', version: 3, appended: 1, duplicate: false, durable: false },
      { sessionId: 'parts-2', version: 3, appended: 0, duplicate: true },
      { sessionId: 'parts-2', version: 4, appended: 1, duplicate: false, durable: false },
    ]);
  });
});
