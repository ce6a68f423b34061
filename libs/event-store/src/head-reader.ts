import type pg from 'pg';
import type { StreamHead } from './event-store.js';

interface Waiter {
  resolve(head: StreamHead | null): void;
  reject(error: unknown): void;
}

/** Stream ids read in one statement at most; more wait for the next one. */
const MAX_IDS = 512;

const READ_HEADS = {
  name: 'chronicle_read_stream_heads',
  text: `SELECT stream_id, version::text, last_hash, archived FROM streams WHERE stream_id = ANY($1::text[])`,
};

/** One stream's head: on Citus, a statement on the one shard that holds it. */
const READ_HEAD = {
  name: 'chronicle_read_stream_head',
  text: `SELECT stream_id, version::text, last_hash, archived FROM streams WHERE stream_id = $1`,
};

interface HeadRow {
  stream_id: string;
  version: string;
  last_hash: string;
  archived: boolean;
}

/**
 * Stream-head reads, coalesced the way appends are group-committed: a read that arrives while a statement is
 * in flight waits for the next one, which reads every stream asked for meanwhile (64 clients revalidating one
 * transcript cost one round trip per round trip, not 64). A read is never answered by a statement that began
 * before it was asked, so it still sees every write acknowledged before it arrived, on any replica. An idle
 * reader sends the first read at once: no timer, no added latency for a lone client.
 */
export class HeadReader {
  private waiting = new Map<string, Waiter[]>();
  private inFlight = false;

  /** `perStream`: each head in a statement of its own, sent at once (Citus: each runs on its own shard, never across them). */
  constructor(
    private readonly pool: pg.Pool,
    private readonly options: { readonly perStream?: boolean } = {},
  ) {}

  read(streamId: string): Promise<StreamHead | null> {
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(streamId);
      if (list) list.push({ resolve, reject });
      else this.waiting.set(streamId, [{ resolve, reject }]);
      if (!this.inFlight) this.next();
    });
  }

  private next(): void {
    if (this.waiting.size === 0) {
      this.inFlight = false;
      return;
    }
    this.inFlight = true;
    const batch = new Map<string, Waiter[]>();
    for (const [id, waiters] of this.waiting) {
      if (batch.size === MAX_IDS) break;
      batch.set(id, waiters);
    }
    for (const id of batch.keys()) this.waiting.delete(id);
    const ids = [...batch.keys()];
    const read: Promise<HeadRow[]> = this.options.perStream
      ? Promise.all(ids.map((id) => this.pool.query<HeadRow>({ ...READ_HEAD, values: [id] }))).then((results) => results.flatMap((r) => r.rows))
      : this.pool.query<HeadRow>({ ...READ_HEADS, values: [ids] }).then((result) => result.rows);
    read
      .then(
        (rows) => {
          const heads = new Map<string, StreamHead>();
          for (const row of rows) {
            heads.set(row.stream_id, { version: Number(row.version), lastHash: row.last_hash, archived: row.archived });
          }
          for (const [id, waiters] of batch) for (const waiter of waiters) waiter.resolve(heads.get(id) ?? null);
        },
        (error: unknown) => {
          for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
        },
      )
      .finally(() => this.next());
  }
}
