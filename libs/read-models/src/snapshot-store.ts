import type pg from 'pg';
import { journalSpansOf, type SessionEvent, type SessionState, storedFormOf, withJournalsFromEvents } from '#domain';
import { engineOf, type EventStore, isSealedSnapshotText, openSnapshotText, sealSnapshotText, type SessionKeyring } from '#event-store';

/**
 * Bump when the fold state's shape changes: older snapshots are then ignored (and rebuilt from events),
 * never misread.
 */
export const SNAPSHOT_SCHEMA_VERSION = 6;

export interface Snapshot {
  readonly version: number;
  /** The stored form (`storedFormOf`): journals that live in the stream are left out (`withStreamJournals`). */
  readonly state: SessionState;
}

const INSERT_SNAPSHOT = `INSERT INTO session_snapshots (stream_id, version, schema_version, state)
  VALUES ($1, $2, $3, $4::json) ON CONFLICT (stream_id, version) DO NOTHING`;
/**
 * Whether the stream holds its erasure after a version. A replica may save a state it folded before another one
 * erased the session (its idle snapshot) after the erasure dropped the snapshots; with content stored plain, that
 * state would put the content back. The events after the snapshot's version are its tail, read by key.
 */
const ERASED_AFTER = `SELECT 1 FROM events e WHERE e.stream_id = $1::text AND e.version > $2::bigint AND e.type = 'SessionErased'`;
/** One statement on one server: the insert only where the stream holds no erasure after the version. */
const INSERT_UNLESS_ERASED = `INSERT INTO session_snapshots (stream_id, version, schema_version, state)
  SELECT $1::text, $2::bigint, $3::int, $4::json WHERE NOT EXISTS (${ERASED_AFTER})
  ON CONFLICT (stream_id, version) DO NOTHING`;
/** Keeps the two newest snapshots of the stream. */
const PRUNE_SNAPSHOTS = `DELETE FROM session_snapshots WHERE stream_id = $1 AND version < (
  SELECT min(version) FROM (SELECT version FROM session_snapshots WHERE stream_id = $1 ORDER BY version DESC LIMIT 2) newest)`;

/** Two journal spans closer than this are read as one range (one query, a few events read in vain). */
const SPAN_GAP = 256;

/**
 * The stream's events that cover the journal spans of a stored state (a snapshot: domain `storedFormOf`), in
 * version order, as domain events with their versions; spans that overlap or lie close together are read in
 * one range. `withJournalsFromEvents` rebuilds the journals from them.
 */
export async function readJournalSpans(store: EventStore, streamId: string, stored: SessionState): Promise<(SessionEvent & { version: number })[]> {
  const spans = journalSpansOf(stored).sort((a, b) => a.from - b.from);
  const ranges: { from: number; to: number }[] = [];
  for (const span of spans) {
    const last = ranges.at(-1);
    if (last && span.from <= last.to + SPAN_GAP) last.to = Math.max(last.to, span.to);
    else ranges.push({ from: span.from, to: span.to });
  }
  // concat, not push(...read): a long turn's span holds more events than a call may take arguments.
  let events: (SessionEvent & { version: number })[] = [];
  for (const range of ranges) {
    const read = (await store.readStreamData(streamId, range)) as (SessionEvent & { version: number })[];
    events = events.length === 0 ? read : events.concat(read);
  }
  return events;
}

/** A stored state (a snapshot) with its journals read back from the stream, as the fold built them. */
export async function withStreamJournals(store: EventStore, streamId: string, stored: SessionState): Promise<SessionState> {
  return (await restoreStreamJournals(store, streamId, stored)).state;
}

/** `withStreamJournals`, with how many events it read from the stream (a long pending turn is read whole). */
export async function restoreStreamJournals(store: EventStore, streamId: string, stored: SessionState): Promise<{ state: SessionState; eventsRead: number }> {
  if (journalSpansOf(stored).length === 0) return { state: stored, eventsRead: 0 };
  const events = await readJournalSpans(store, streamId, stored);
  return { state: withJournalsFromEvents(stored, events), eventsRead: events.length };
}

/** Projection state stored off the hot path (`session_snapshots`). */
export class SnapshotStore {
  /** With a keyring, a session's snapshots are sealed with its data key (a snapshot holds its transcript). */
  constructor(
    private readonly pool: pg.Pool,
    private readonly keyring: SessionKeyring | null = null,
  ) {}

  /** A stored snapshot's state text, opened: null when it is sealed and the session's key is gone (erased). */
  async openText(streamId: string, stored: string): Promise<string | null> {
    if (!isSealedSnapshotText(stored)) return stored;
    const key = this.keyring === null ? null : await this.keyring.keyFor(streamId);
    return openSnapshotText(key?.key ?? null, streamId, stored);
  }

  /** Drops every snapshot of the stream (an erasure: they hold its content). */
  async purge(streamId: string): Promise<number> {
    return (await this.pool.query('DELETE FROM session_snapshots WHERE stream_id = $1', [streamId])).rowCount ?? 0;
  }

  async latest(streamId: string, atOrBefore?: number): Promise<Snapshot | null> {
    const result = await this.pool.query(
      `SELECT s.version::text AS version, s.state::text AS state FROM session_snapshots s
        WHERE s.stream_id = $1 AND s.schema_version = $2 AND ($3::bigint IS NULL OR s.version <= $3::bigint)
        ORDER BY s.version DESC LIMIT 1`,
      [streamId, SNAPSHOT_SCHEMA_VERSION, atOrBefore ?? null],
    );
    const row = result.rows[0];
    if (!row) return null;
    const text = await this.openText(streamId, row.state as string);
    // A snapshot that cannot be opened is no snapshot: the state is folded from the events instead.
    return text === null ? null : { version: Number(row.version), state: JSON.parse(text) as SessionState };
  }

  async latestVersion(streamId: string): Promise<number> {
    const result = await this.pool.query(
      `SELECT max(version)::text AS version FROM session_snapshots WHERE stream_id = $1 AND schema_version = $2`,
      [streamId, SNAPSHOT_SCHEMA_VERSION],
    );
    return Number(result.rows[0]?.version ?? 0);
  }

  /**
   * Stores `state` in its stored form (its live journals stay in the stream) and keeps the two newest snapshots
   * of the stream (time travel folds from the nearest one below).
   */
  async save(streamId: string, version: number, state: SessionState): Promise<void> {
    const key = this.keyring === null ? null : await this.keyring.keyState(streamId);
    // Erased (the key destroyed, here or on another replica): no copy of a state is written, sealed or not.
    if (key === 'destroyed') return;
    const text = sealSnapshotText(key?.key ?? null, streamId, JSON.stringify(storedFormOf(state)));
    const values = [streamId, version, SNAPSHOT_SCHEMA_VERSION, text];
    if ((await engineOf(this.pool)) === 'citus') {
      // Two statements on Citus: as one, its planner runs the CTE and the LIMIT subquery as distributed subplans
      // through intermediate results (6.5 ms a save on a quiet local cluster, 29 ms under the bench's load);
      // alone, each is a router statement on the stream's shard (2.6-4.3 ms the pair). A failure between them
      // leaves one snapshot too many, which the next save prunes.
      const erased = await this.pool.query({ name: 'chronicle_snapshot_erased_after', text: ERASED_AFTER, values: [streamId, version] });
      if ((erased.rowCount ?? 0) > 0) return;
      await this.pool.query({ name: 'chronicle_snapshot_insert', text: INSERT_SNAPSHOT, values });
      await this.pool.query({ name: 'chronicle_snapshot_prune', text: PRUNE_SNAPSHOTS, values: [streamId] });
      return;
    }
    await this.pool.query(`WITH saved AS (${INSERT_UNLESS_ERASED} RETURNING 1) ${PRUNE_SNAPSHOTS}`, values);
  }
}
