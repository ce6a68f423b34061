import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { DataKey, SessionKeyring } from '#event-store';
import type { SessionAudit } from '../session-audit.js';
import type { AuditBatch, StreamPart } from './audit-batch.processor.js';
import { type AuditLane, defaultWorkerCount, leastBusy, openLanes } from './audit-lanes.js';
import { PackedChains } from './packed-chains.js';
import { type AuditHead, countStreams, readHeads, readStoredModels, readStreamPage, readStreams, type StoredBegin } from './store-audit.reader.js';

export interface AuditProgress {
  /** Sessions audited so far, and how many session streams the audit covers (counted when it started). */
  readonly sessions: number;
  readonly total: number;
  readonly mismatches: number;
  readonly eventsReplayed: number;
  readonly totalEvents: number;
  readonly seconds: number;
  readonly eventsPerSecond: number;
  /** Seconds left at the current rate (null before any event). */
  readonly etaSeconds: number | null;
  /** The session just audited. */
  readonly sessionId: string;
}

export interface AuditAllOptions {
  /** Stream heads read per keyset page (default 1000). */
  readonly pageSize?: number;
  /** Events per batch handed to a fold lane, and per page of a long stream (default 5,000). */
  readonly batchEvents?: number;
  /** Worker threads that fold and compare (0 = on the reading thread); default: one per core beyond this one's, at least one. */
  readonly workers?: number;
  /** Only sessions whose stream changed at or after this time. */
  readonly since?: Date;
  /** Called after each session. */
  readonly onProgress?: (progress: AuditProgress) => void;
  /** Every session's audit, matching or not (for a streaming caller). */
  readonly onSession?: (audit: SessionAudit) => void;
  /** Checked between batches: a true answer stops the audit early (its report covers what was done). */
  readonly cancelled?: () => boolean;
}

export interface AuditReport {
  readonly sessions: number;
  readonly mismatches: SessionAudit[];
  readonly eventsReplayed: number;
  readonly seconds: number;
}

/** At most this many batches wait on each lane: the reading thread stays ahead, memory stays bounded. */
const QUEUE_PER_LANE = 2;

/**
 * Audits every session stream by stream, as the events stream by: heads in keyset pages, events in large
 * batches (a long stream in keyset pages of its own, read one ahead), each batch's hash chains followed on this thread and the
 * batch folded and compared on a worker thread while this thread reads and checks the next. Memory holds a page of heads and a few batches whatever the store's
 * size; only mismatches are kept.
 */
export async function auditAll(deps: { readonly pool: pg.Pool; readonly keyring?: SessionKeyring | null }, options: AuditAllOptions = {}): Promise<AuditReport> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const since = options.since ?? null;
  const batchEvents = options.batchEvents ?? 5_000;
  if (!Number.isSafeInteger(batchEvents) || batchEvents < 1) throw new RangeError(`audit: batchEvents must be a whole number ≥ 1 (got ${batchEvents})`);
  const totals = await countStreams(deps.pool, since);
  const lanes = openLanes(options.workers ?? defaultWorkerCount());
  const mismatches: SessionAudit[] = [];
  const pending = new Set<Promise<void>>();
  let sessions = 0;
  let eventsReplayed = 0;
  let batchId = 0;
  let failure: unknown = null;

  const chains = new PackedChains();
  // The chains are followed on this thread, as each batch's text arrives, while a lane folds the batch before.
  const prepare = (parts: StreamPart[], texts: readonly string[]) => chains.toBatch((batchId += 1), parts, texts);
  const submit = async (lane: AuditLane, batch: AuditBatch) => {
    while (lane.inFlight >= QUEUE_PER_LANE && failure === null) await Promise.race(pending);
    if (failure !== null) throw failure;
    const job = lane.run(batch).then((result) => {
      eventsReplayed += result.events;
      for (const audit of result.audits) {
        sessions += 1;
        if (!audit.match) mismatches.push(audit);
        options.onSession?.(audit);
        const elapsed = seconds();
        const rate = elapsed > 0 ? eventsReplayed / elapsed : 0;
        options.onProgress?.({
          sessions,
          total: totals.sessions,
          mismatches: mismatches.length,
          eventsReplayed,
          totalEvents: totals.events,
          seconds: elapsed,
          eventsPerSecond: Math.round(rate),
          etaSeconds: rate > 0 ? Math.max(0, totals.events - eventsReplayed) / rate : null,
          sessionId: audit.sessionId,
        });
      }
    });
    const tracked: Promise<void> = job
      .catch((error: unknown) => {
        failure ??= error;
      })
      .finally(() => pending.delete(tracked));
    pending.add(tracked);
  };

  try {
    let after = '';
    for (;;) {
      if (options.cancelled?.()) break;
      const heads = await readHeads(deps.pool, after, since, options.pageSize ?? 1000);
      if (heads.length === 0) break;
      after = heads[heads.length - 1].streamId;
      await auditPage(deps.pool, deps.keyring ?? null, heads, batchEvents, lanes, prepare, submit, options.cancelled);
    }
    await Promise.all(pending);
    if (failure !== null) throw failure;
  } finally {
    await Promise.all(pending);
    await Promise.all(lanes.map((lane) => lane.close()));
  }
  mismatches.sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
  return { sessions, mismatches, eventsReplayed, seconds: seconds() };
}

type Prepare = (parts: StreamPart[], texts: readonly string[]) => Promise<AuditBatch>;
type Submit = (lane: AuditLane, batch: AuditBatch) => Promise<void>;

/** A batch to read: its parts (their stored models read with the events) and its packed events. */
interface BatchRead {
  readonly parts: StreamPart[];
  readonly texts: readonly string[];
  /** A later page of the stream the batch before began: it goes to that batch's lane. */
  readonly continues: boolean;
}

/**
 * The page's batches, in order, each a read not yet started: short streams go together, a batch at a time; a
 * long one goes in keyset pages of `batchEvents` events.
 */
function* batchesOf(
  pool: pg.Pool,
  keyring: SessionKeyring | null,
  heads: readonly AuditHead[],
  batchEvents: number,
): Generator<() => Promise<BatchRead>> {
  // Each stream's data key goes with its first part, for the fold lane to open its sealed content.
  const keysOf = async (group: readonly AuditHead[]): Promise<Map<string, DataKey>> =>
    keyring === null ? new Map() : keyring.keysFor(group.map((h) => h.streamId));
  // Stored models are read per batch, not per page: snapshots hold whole fold states.
  const beginOf = (h: AuditHead, stored: Map<string, StoredBegin>, keys: Map<string, DataKey>) => ({
    head: { version: h.version, lastHash: h.lastHash },
    streamId: h.streamId,
    dataKey: keys.get(h.streamId)?.key.toString('base64') ?? null,
    ...(stored.get(h.streamId) as StoredBegin),
  });
  const together = (group: AuditHead[]) => async (): Promise<BatchRead> => {
    const [stored, events, keys] = await Promise.all([readStoredModels(pool, group), readStreams(pool, group), keysOf(group)]);
    return { parts: group.map((h) => ({ sessionId: h.sessionId, begin: beginOf(h, stored, keys), end: true })), texts: events.texts, continues: false };
  };
  let group: AuditHead[] = [];
  let groupEvents = 0;
  for (const head of heads) {
    if (head.version <= batchEvents) {
      if (groupEvents + head.version > batchEvents) {
        yield together(group);
        group = [];
        groupEvents = 0;
      }
      group.push(head);
      groupEvents += head.version;
      continue;
    }
    if (group.length > 0) yield together(group);
    group = [];
    groupEvents = 0;
    // Keyset pages: a page starts after the last version the page before it read. The generator is resumed
    // only once the read it yielded has settled (auditPage starts a read when the one before it was prepared).
    const page = { after: 0, end: false, read: true };
    for (let first = true; !page.end; first = false) {
      if (!page.read) throw new Error(`audit: a page of ${head.sessionId} asked for before the page before it was read`);
      page.read = false;
      const after = page.after;
      yield async () => {
        const [stored, events, keys] = await Promise.all([
          first ? readStoredModels(pool, [head]) : null,
          readStreamPage(pool, head.streamId, after, head.version, batchEvents),
          first ? keysOf([head]) : null,
        ]);
        const last = events.count === 0 ? head.version : events.last;
        Object.assign(page, { after: last, end: events.count < batchEvents || last >= head.version, read: true });
        const part = { sessionId: head.sessionId, ...(stored && keys ? { begin: beginOf(head, stored, keys) } : {}), end: page.end };
        return { parts: [part], texts: events.texts, continues: !first };
      };
    }
  }
  if (group.length > 0) yield together(group);
}

/**
 * Reads the page's batches one ahead of the one handed to a lane, so PostgreSQL builds the next batch while
 * this thread checks the last (read, then check, one after the other, kept a core idle half the time). A
 * batch's texts are checked and turned into the lane's batch as soon as they arrive, so they die young. A long
 * stream's pages all go to the lane of its first. When the page stops
 * early (cancelled, or a lane failed), the read in flight is let finish unprepared before this returns.
 */
async function auditPage(
  pool: pg.Pool,
  keyring: SessionKeyring | null,
  heads: readonly AuditHead[],
  batchEvents: number,
  lanes: readonly AuditLane[],
  prepare: Prepare,
  submit: Submit,
  cancelled?: () => boolean,
): Promise<void> {
  const reads = batchesOf(pool, keyring, heads, batchEvents);
  let stopped = false;
  // Called once the batch before was prepared, so batches are prepared (their chains followed) in order.
  const start = (): Promise<{ readonly batch: AuditBatch | null; readonly continues: boolean }> | null => {
    const next = reads.next();
    if (next.done) return null;
    const read = next.value().then(async ({ parts, texts, continues }) => ({ batch: stopped ? null : await prepare(parts, texts), continues }));
    // Read ahead: a failure while the batch before is being handed over is not an unhandled rejection (it is
    // thrown when this read is awaited).
    read.catch(() => undefined);
    return read;
  };
  let ahead = cancelled?.() ? null : start();
  let lane: AuditLane | null = null;
  try {
    while (ahead !== null) {
      const { batch, continues } = await ahead;
      ahead = null;
      if (batch === null || cancelled?.()) return;
      ahead = start();
      lane = continues && lane !== null ? lane : leastBusy(lanes);
      await submit(lane, batch);
    }
  } finally {
    stopped = true;
    await ahead?.catch(() => undefined);
  }
}
