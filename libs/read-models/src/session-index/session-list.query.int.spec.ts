import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { DataKey } from '#event-store';
import { useTestDatabase } from '../../../../test/support/database.js';
import type { StoredIndexRow } from './index-row.builder.js';
import { type DataKeySource, writeIndexRows } from './session-index.projector.js';
import { listSessions } from './session-list.query.js';

const db = useTestDatabase();
let pool: pg.Pool;
beforeAll(() => {
  pool = db.pool;
});

/** Each session's data key, as the keyring would hand them out (one per session). */
const keys = new Map<string, DataKey>();
const keySource: DataKeySource & { calls: number } = {
  calls: 0,
  async keysFor(streamIds) {
    this.calls += 1;
    return new Map(streamIds.flatMap((id) => (keys.has(id) ? [[id, keys.get(id) as DataKey] as const] : [])));
  },
};

const rowOf = (title: string, at: number, pendingText: string | null = null): StoredIndexRow => ({
  version: 1,
  title,
  parentSessionId: null,
  status: pendingText === null ? 'active' : 'pending',
  archived: false,
  createdAt: at,
  lastActivityAt: at,
  messageCount: 0,
  pendingTurn: pendingText === null ? null : { runId: 'r', text: pendingText, attachments: [], submittedAt: at, source: null },
  markers: { pending: 0, recovered: 0, noOutput: 0, neutral: 0 },
});

describe('the session list over sealed titles', () => {
  // Twelve sessions, newest first s11 … s00; the titles of s10, s06 and s01 hold "needle". s06 is stored plain
  // (written before sealing), the others sealed with their own keys.
  beforeAll(async () => {
    const rows = Array.from({ length: 12 }, (_, i) => {
      const sessionId = `sl-${String(i).padStart(2, '0')}`;
      const key = { id: `k${i}`, key: randomBytes(32) };
      if (i !== 6) keys.set(`session-${sessionId}`, key);
      const title = [10, 6, 1].includes(i) ? `A NeedLe in ${sessionId}` : `hay ${sessionId}`;
      return { sessionId, row: rowOf(title, 1_000 + i, i === 11 ? 'a pending prompt' : null), dataKey: i === 6 ? null : key.key };
    });
    const client = await pool.connect();
    try {
      await writeIndexRows(client, 'postgres', 'session_index', rows);
    } finally {
      client.release();
    }
  });

  it('stores no title or prompt in the clear, and lists them opened', async () => {
    const stored = await pool.query(`SELECT session_id, title, pending_turn, sealed FROM session_index WHERE session_id LIKE 'sl-%' ORDER BY session_id`);
    expect(stored.rows.filter((r) => r.title !== null).map((r) => r.session_id)).toEqual(['sl-06']);
    expect(stored.rows.filter((r) => r.sealed !== null)).toHaveLength(11);
    expect(JSON.stringify(stored.rows)).not.toContain('pending prompt');
    const page = await listSessions(pool, { q: 'sl-', limit: 2 }, keySource);
    expect(page.items.map((i) => [i.sessionId, i.title])).toEqual([
      ['sl-11', 'hay sl-11'],
      ['sl-10', 'A NeedLe in sl-10'],
    ]);
    expect(page.items[0]?.pendingTurn).toEqual({ runId: 'r', text: 'a pending prompt', attachments: [], submittedAt: 1_011, source: null });
  });

  it('matches a search in the opened titles, case-insensitively, sealed or plain', async () => {
    const page = await listSessions(pool, { q: 'needle', limit: 10 }, keySource);
    expect(page.items.map((i) => i.sessionId)).toEqual(['sl-10', 'sl-06', 'sl-01']);
    expect(page.nextCursor).toBeNull();
  });

  it('ends a page early at the scan limit with a cursor that goes on, and finds every match once', async () => {
    const seen: string[] = [];
    const pages: number[] = [];
    let cursor: string | undefined;
    for (let n = 0; n < 20; n += 1) {
      const page = await listSessions(pool, { q: 'needle', limit: 2, ...(cursor ? { cursor } : {}) }, keySource, { scanLimit: 4, chunkSize: 3 });
      seen.push(...page.items.map((i) => i.sessionId));
      pages.push(page.items.length);
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(['sl-10', 'sl-06', 'sl-01']);
    // s11…s08 (one match), s07…s04 (one), s03…s00 (one), then the end: short pages, each with a cursor but the last.
    expect(pages).toEqual([1, 1, 1]);
  });

  it('without a key source (sealing off) searches in SQL and reads sealed rows as erased', async () => {
    const page = await listSessions(pool, { q: 'needle', limit: 10 });
    expect(page.items.map((i) => i.sessionId)).toEqual(['sl-06']);
    const all = await listSessions(pool, { q: 'sl-1', limit: 10 });
    expect(all.items.map((i) => [i.sessionId, i.title])).toEqual([
      ['sl-11', null],
      ['sl-10', null],
    ]);
  });
});
