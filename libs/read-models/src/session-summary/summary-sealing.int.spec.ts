import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { DataKey } from '#event-store';
import { useTestDatabase } from '../../../../test/support/database.js';
import { openSummaryData } from '../read-model-content.js';
import type { DataKeySource } from '../session-index/session-index.projector.js';
import { sealPlainSummaries, SUMMARIES_SEALED } from './summary-sealing.js';

const db = useTestDatabase();
let pool: pg.Pool;
beforeAll(() => {
  pool = db.pool;
});

const keys = new Map<string, DataKey>();
const keySource: DataKeySource = {
  async keysFor(streamIds) {
    return new Map(streamIds.flatMap((id) => (keys.has(id) ? [[id, keys.get(id) as DataKey] as const] : [])));
  },
};

/** A summary row as Chronicle wrote it before read models were sealed: title and pending prompt in the clear. */
const plainData = (title: string | null, prompt: string | null) => ({
  version: 3,
  title,
  pendingTurn: prompt === null ? null : { runId: 'run-1', text: prompt, attachments: [{ name: 'a.txt' }], source: 'submission', submittedAt: 10 },
  messageCount: 2,
});

async function insertSummary(streamId: string, data: object): Promise<void> {
  await pool.query(`INSERT INTO session_summaries (stream_id, version, data) VALUES ($1, 3, $2::jsonb)`, [streamId, JSON.stringify(data)]);
}
const storedData = async (streamId: string) => (await pool.query(`SELECT data FROM session_summaries WHERE stream_id = $1`, [streamId])).rows[0].data;

describe('sealing the summary rows written plain before read models were sealed', () => {
  beforeAll(async () => {
    for (let i = 0; i < 7; i += 1) {
      const streamId = `session-old-${i}`;
      keys.set(streamId, { id: `k${i}`, key: randomBytes(32) });
      await insertSummary(streamId, plainData(`Secret title ${i}`, i % 2 ? `Secret prompt ${i}` : null));
    }
    // A session without a key (written before content was sealed, or erased): left as it is.
    await insertSummary('session-keyless', plainData('Keyless title', null));
    // Nothing to seal: no title, no pending turn.
    keys.set('session-empty', { id: 'ke', key: randomBytes(32) });
    await insertSummary('session-empty', plainData(null, null));
  });

  it('seals every row with a key in pages, keeping what the row reads as, and skips the rest', async () => {
    const result = await sealPlainSummaries(pool, keySource, { batch: 3 });
    expect(result).toEqual({ examined: 8, sealed: 7, alreadyDone: false });
    for (let i = 0; i < 7; i += 1) {
      const streamId = `session-old-${i}`;
      const stored = await storedData(streamId);
      expect(JSON.stringify(stored)).not.toMatch(/Secret/);
      expect(stored).toMatchObject({ title: null, sealed: expect.stringMatching(/^1:/) });
      expect(openSummaryData(keys.get(streamId)!.key, streamId, stored)).toEqual(plainData(`Secret title ${i}`, i % 2 ? `Secret prompt ${i}` : null));
    }
    expect(await storedData('session-keyless')).toEqual(plainData('Keyless title', null));
    expect(await storedData('session-empty')).toEqual(plainData(null, null));
  });

  it('leaves a row alone when an append rewrote it meanwhile, and records a finished pass so later starts skip the scan', async () => {
    await pool.query(`DELETE FROM projection_checkpoints WHERE name = $1`, [SUMMARIES_SEALED]);
    const streamId = 'session-raced';
    keys.set(streamId, { id: 'kr', key: randomBytes(32) });
    await insertSummary(streamId, plainData('Raced title', null));
    // The keys are looked up between the page read and the rewrites: an append lands there with a new version.
    const racing: DataKeySource = {
      async keysFor(ids) {
        await pool.query(`UPDATE session_summaries SET version = 4 WHERE stream_id = $1`, [streamId]);
        return keySource.keysFor(ids);
      },
    };
    expect(await sealPlainSummaries(pool, racing)).toEqual({ examined: 2, sealed: 0, alreadyDone: false });
    expect(await storedData(streamId)).toEqual(plainData('Raced title', null));
    expect(await sealPlainSummaries(pool, keySource)).toEqual({ examined: 0, sealed: 0, alreadyDone: true });
  });
});
