import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { DataKey } from './content-seal.js';
import type { MasterKeys } from './master-keys.js';

/**
 * The key table: one data key per session, wrapped by a master key. It lives in a database of its own (the key
 * store), apart from the events, so a backup of the event database holds ciphertext only and restoring it brings
 * no erased content back. An erased session keeps a row without its key (a tombstone), so no writer can give it
 * a new one; the erasure vacuums the table, so the destroyed key is not left in a dead row version either.
 */
export const KEY_TABLE_DDL = `
  CREATE TABLE IF NOT EXISTS session_data_keys (
    stream_id      text PRIMARY KEY,
    key_id         text NOT NULL,
    master_key_id  text,
    wrapped        bytea,
    created_at     timestamptz NOT NULL DEFAULT now(),
    destroyed_at   timestamptz,
    CHECK ((wrapped IS NULL) = (destroyed_at IS NOT NULL))
  )`;

export class SessionErasedError extends Error {
  override readonly name = 'SessionErasedError';
  readonly code = 'SESSION_ERASED';
  constructor(readonly streamId: string) {
    super(`the content of ${streamId} was erased: its data key is destroyed`);
  }
}

interface KeyRow {
  stream_id: string;
  key_id: string;
  master_key_id: string | null;
  wrapped: Buffer | null;
}

/** What the keyring knows of a stream: its key, or that it was erased. */
type Known = DataKey | 'destroyed';

export interface KeyringOptions {
  /** Data keys kept unwrapped in memory (least recently used dropped first); default 50,000 (~5 MB). */
  readonly cacheSize?: number;
}

export class SessionKeyring {
  /** Each key with when it was last (re)inserted, counted in insertions (`inserted`): the map's order is recency. */
  private readonly cache = new Map<string, { readonly known: Known; readonly at: number }>();
  private inserted = 0;
  private readonly cacheSize: number;
  private readonly creating = new Map<string, Promise<DataKey>>();

  constructor(
    private readonly pool: pg.Pool,
    readonly masters: MasterKeys,
    options: KeyringOptions = {},
  ) {
    this.cacheSize = options.cacheSize ?? 50_000;
  }

  async ensureSchema(): Promise<void> {
    await this.pool.query(KEY_TABLE_DDL);
  }

  /** The stream's data key to read with: null when it has none (never sealed, or erased). */
  async keyFor(streamId: string): Promise<DataKey | null> {
    const known = await this.keyState(streamId);
    return known === 'destroyed' ? null : known;
  }

  /** The stream's data key, `destroyed` when it was erased, null when it never had one. */
  async keyState(streamId: string): Promise<DataKey | 'destroyed' | null> {
    return this.cached(streamId) ?? (await this.load([streamId])).get(streamId) ?? null;
  }

  /** Keys of many streams in one query (a page of the log, an audit batch); streams without a key are absent. */
  async keysFor(streamIds: readonly string[]): Promise<Map<string, DataKey>> {
    const out = new Map<string, DataKey>();
    const missing: string[] = [];
    for (const id of new Set(streamIds)) {
      const known = this.cached(id);
      if (known === undefined) missing.push(id);
      else if (known !== 'destroyed') out.set(id, known);
    }
    if (missing.length > 0) {
      for (const [id, known] of await this.load(missing)) if (known !== 'destroyed') out.set(id, known);
    }
    return out;
  }

  /** The stream's data key to write with, made on its first write; an erased stream throws `SessionErasedError`. */
  async keyForWrite(streamId: string): Promise<DataKey> {
    const known = this.cached(streamId);
    if (known === 'destroyed') throw new SessionErasedError(streamId);
    if (known !== undefined) return known;
    const pending = this.creating.get(streamId);
    if (pending !== undefined) return pending;
    const made = this.create(streamId).finally(() => this.creating.delete(streamId));
    this.creating.set(streamId, made);
    return made;
  }

  /**
   * Takes a data key from elsewhere (an import file made by `chronicle export` of another store): kept as the
   * stream's key when it has none; the same key again is a no-op; a different one, or a stream erased here, throws.
   */
  async adopt(streamId: string, key: Buffer): Promise<DataKey> {
    await this.pool.query(
      `INSERT INTO session_data_keys (stream_id, key_id, master_key_id, wrapped) VALUES ($1, $2, $3, $4) ON CONFLICT (stream_id) DO NOTHING`,
      [streamId, randomUUID(), this.masters.current.id, this.masters.wrap(key, streamId)],
    );
    this.cache.delete(streamId);
    const known = (await this.load([streamId])).get(streamId);
    if (known === 'destroyed') throw new SessionErasedError(streamId);
    if (known === undefined || !known.key.equals(key)) throw new Error(`${streamId} already has a data key other than the one given`);
    return known;
  }

  /**
   * Destroys the stream's data key: the row keeps only a tombstone, and the table is vacuumed so the wrapped key
   * is not left behind in a dead row version. Returns the destroyed key's id (null when the stream had none).
   */
  async destroy(streamId: string): Promise<string | null> {
    const result = await this.pool.query<{ key_id: string }>(
      `INSERT INTO session_data_keys AS k (stream_id, key_id, destroyed_at) VALUES ($1, 'none', now())
         ON CONFLICT (stream_id) DO UPDATE SET wrapped = NULL, master_key_id = NULL, destroyed_at = coalesce(k.destroyed_at, now())
       RETURNING key_id`,
      [streamId],
    );
    this.remember(streamId, 'destroyed');
    await this.pool.query('VACUUM session_data_keys');
    const keyId = result.rows[0]?.key_id ?? null;
    return keyId === 'none' ? null : keyId;
  }

  /** Drops what this process holds of the stream's key (another replica erased it). */
  forget(streamId: string): void {
    this.cache.delete(streamId);
  }

  /**
   * Re-wraps every data key not wrapped by the current master key, a page at a time; the events are not touched.
   * Afterwards the previous master keys can be retired.
   */
  async rotate(onPage?: (rewrapped: number) => void): Promise<number> {
    let total = 0;
    for (;;) {
      const page = await this.pool.query<KeyRow>(
        `SELECT stream_id, key_id, master_key_id, wrapped FROM session_data_keys
          WHERE wrapped IS NOT NULL AND master_key_id <> $1 ORDER BY stream_id LIMIT 500`,
        [this.masters.current.id],
      );
      if (page.rows.length === 0) return total;
      const ids: string[] = [];
      const wrapped: Buffer[] = [];
      for (const row of page.rows) {
        const key = this.masters.unwrap(row.wrapped as Buffer, row.master_key_id as string, row.stream_id);
        ids.push(row.stream_id);
        wrapped.push(this.masters.wrap(key, row.stream_id));
      }
      await this.pool.query(
        `UPDATE session_data_keys k SET wrapped = w.wrapped, master_key_id = $3
           FROM unnest($1::text[], $2::bytea[]) AS w(stream_id, wrapped)
          WHERE k.stream_id = w.stream_id AND k.wrapped IS NOT NULL`,
        [ids, wrapped, this.masters.current.id],
      );
      total += ids.length;
      onPage?.(total);
    }
  }

  /** Streams whose key was destroyed (erased sessions), after `after` in stream id order, a page at a time. */
  async destroyedStreams(after: string, limit: number): Promise<string[]> {
    const result = await this.pool.query<{ stream_id: string }>(
      'SELECT stream_id FROM session_data_keys WHERE wrapped IS NULL AND stream_id > $1 ORDER BY stream_id LIMIT $2',
      [after, limit],
    );
    return result.rows.map((row) => row.stream_id);
  }

  /** Counts of live and destroyed keys, and live keys per master key id. */
  async stats(): Promise<{ live: number; destroyed: number; byMaster: Record<string, number> }> {
    const result = await this.pool.query<{ master_key_id: string | null; n: number }>(
      `SELECT master_key_id, count(*)::int AS n FROM session_data_keys GROUP BY master_key_id`,
    );
    let live = 0;
    let destroyed = 0;
    const byMaster: Record<string, number> = {};
    for (const row of result.rows) {
      if (row.master_key_id === null) destroyed += row.n;
      else {
        live += row.n;
        byMaster[row.master_key_id] = row.n;
      }
    }
    return { live, destroyed, byMaster };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async create(streamId: string): Promise<DataKey> {
    const key = randomBytes(32);
    const keyId = randomUUID();
    const result = await this.pool.query<KeyRow>(
      `WITH made AS (
         INSERT INTO session_data_keys (stream_id, key_id, master_key_id, wrapped) VALUES ($1, $2, $3, $4)
         ON CONFLICT (stream_id) DO NOTHING RETURNING stream_id, key_id, master_key_id, wrapped)
       SELECT * FROM made
       UNION ALL
       SELECT stream_id, key_id, master_key_id, wrapped FROM session_data_keys WHERE stream_id = $1 AND NOT EXISTS (SELECT 1 FROM made)`,
      [streamId, keyId, this.masters.current.id, this.masters.wrap(key, streamId)],
    );
    // A key another writer committed after this statement's snapshot began: its INSERT conflicted, its row is not
    // in this snapshot; the next statement sees it.
    const row = result.rows[0] ?? (await this.pool.query<KeyRow>(
      'SELECT stream_id, key_id, master_key_id, wrapped FROM session_data_keys WHERE stream_id = $1', [streamId])).rows[0];
    const known = this.known(row);
    this.remember(streamId, known);
    if (known === 'destroyed') throw new SessionErasedError(streamId);
    return known;
  }

  private async load(streamIds: readonly string[]): Promise<Map<string, Known>> {
    const result = await this.pool.query<KeyRow>(
      'SELECT stream_id, key_id, master_key_id, wrapped FROM session_data_keys WHERE stream_id = ANY($1::text[])',
      [streamIds],
    );
    const out = new Map<string, Known>();
    for (const row of result.rows) {
      const known = this.known(row);
      this.remember(row.stream_id, known);
      out.set(row.stream_id, known);
    }
    return out;
  }

  private known(row: KeyRow | undefined): Known {
    if (row === undefined) throw new Error('the key table answered no row for a key it was given');
    if (row.wrapped === null || row.master_key_id === null) return 'destroyed';
    return { id: row.key_id, key: this.masters.unwrap(row.wrapped, row.master_key_id, row.stream_id) };
  }

  private cached(streamId: string): Known | undefined {
    const entry = this.cache.get(streamId);
    if (entry === undefined) return undefined;
    // Least recently used, nearly: a hit moves to the end only when it is in the older half, so the keys of the
    // sessions that stream (every token asks) are not moved on every append; a key in the newer half has at least
    // half the cache's size of insertions to go before it could be dropped.
    if (this.inserted - entry.at > this.cacheSize / 2) this.remember(streamId, entry.known);
    return entry.known;
  }

  private remember(streamId: string, known: Known): void {
    this.cache.delete(streamId);
    this.cache.set(streamId, { known, at: (this.inserted += 1) });
    if (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value as string);
  }
}
