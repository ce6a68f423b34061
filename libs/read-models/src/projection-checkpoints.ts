import type pg from 'pg';
import { type LogCursor, mergeCursors, parseCursor, START } from '#event-store';

type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.ClientBase, 'query'>;

/** A projector's cursor in `projection_checkpoints` (the start when it has none). */
export async function readCheckpoint(db: Queryable, name: string): Promise<LogCursor> {
  const result = await db.query(`SELECT cursor FROM projection_checkpoints WHERE name = $1`, [name]);
  return result.rows[0] ? parseCursor(result.rows[0].cursor) : START;
}

/** Sets a projector's cursor (a rebuild's swap: the new table holds exactly what this cursor read). */
export async function writeCheckpoint(db: Queryable, name: string, cursor: LogCursor): Promise<void> {
  await db.query(
    `INSERT INTO projection_checkpoints (name, cursor) VALUES ($1, $2::jsonb)
     ON CONFLICT (name) DO UPDATE SET cursor = EXCLUDED.cursor, updated_at = EXCLUDED.updated_at`,
    [name, JSON.stringify(cursor)],
  );
}

/**
 * Moves a projector's cursor forward to `reached`, inside the caller's transaction and after the rows it wrote
 * for it: under the row's lock, each origin keeps the further of the stored and the reached position.
 * Two replicas running the same projector at once (on Citus an advisory lock holds only on the node it was
 * taken on) then never move it back, and each moves it only past what it wrote itself.
 */
export async function advanceCheckpoint(client: pg.ClientBase, name: string, reached: LogCursor): Promise<void> {
  await client.query(`INSERT INTO projection_checkpoints (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`, [name]);
  const stored = await client.query(`SELECT cursor FROM projection_checkpoints WHERE name = $1 FOR UPDATE`, [name]);
  const cursor = mergeCursors(parseCursor(stored.rows[0]?.cursor), reached);
  await client.query(`UPDATE projection_checkpoints SET cursor = $2::jsonb, updated_at = now() WHERE name = $1`, [name, JSON.stringify(cursor)]);
}
