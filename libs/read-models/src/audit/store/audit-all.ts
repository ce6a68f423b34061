import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { SessionAudit } from '../session-audit.js';
import type { StreamPart } from './audit-batch.processor.js';
import { type AuditLane, defaultWorkerCount, leastBusy, openLanes } from './audit-lanes.js';
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
 * batches (a long stream in keyset pages of its own), each batch folded and compared on a worker thread
 * while this thread reads the next. Memory holds a page of heads and a few batches whatever the store's
 * size; only mismatches are kept.
 */
export async function auditAll(deps: { readonly pool: pg.Pool }, options: AuditAllOptions = {}): Promise<AuditReport> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const since = options.since ?? null;
  const batchEvents = options.batchEvents ?? 5_000;
  const totals = await countStreams(deps.pool, since);
  const lanes = openLanes(options.workers ?? defaultWorkerCount());
  const mismatches: SessionAudit[] = [];
  const pending = new Set<Promise<void>>();
  let sessions = 0;
  let eventsReplayed = 0;
  let batchId = 0;
  let failure: unknown = null;

  const submit = async (lane: AuditLane, parts: StreamPart[], events: string) => {
    while (lane.inFlight >= QUEUE_PER_LANE && failure === null) await Promise.race(pending);
    if (failure !== null) throw failure;
    const job = lane.run({ id: (batchId += 1), parts, events }).then((result) => {
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
      await auditPage(deps.pool, heads, batchEvents, lanes, submit, options.cancelled);
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

type Submit = (lane: AuditLane, parts: StreamPart[], events: string) => Promise<void>;

/** Short streams go together, a batch at a time, to the least busy lane; a long one goes page by page to one lane. */
async function auditPage(
  pool: pg.Pool,
  heads: readonly AuditHead[],
  batchEvents: number,
  lanes: readonly AuditLane[],
  submit: Submit,
  cancelled?: () => boolean,
): Promise<void> {
  // Stored models are read per batch, not per page: snapshots hold whole fold states.
  const beginOf = (h: AuditHead, stored: Map<string, StoredBegin>) => ({
    head: { version: h.version, lastHash: h.lastHash },
    ...(stored.get(h.streamId) as StoredBegin),
  });
  let group: AuditHead[] = [];
  let groupEvents = 0;
  const flush = async () => {
    if (group.length === 0) return;
    const [stored, events] = await Promise.all([readStoredModels(pool, group), readStreams(pool, group)]);
    const parts = group.map((h) => ({ sessionId: h.sessionId, begin: beginOf(h, stored), end: true }));
    group = [];
    groupEvents = 0;
    await submit(leastBusy(lanes), parts, events.text);
  };
  for (const head of heads) {
    if (cancelled?.()) return;
    if (head.version <= batchEvents) {
      if (groupEvents + head.version > batchEvents) await flush();
      group.push(head);
      groupEvents += head.version;
      continue;
    }
    await flush();
    const lane = leastBusy(lanes);
    const stored = await readStoredModels(pool, [head]);
    for (let done = 0, first = true; first || done < head.version; first = false) {
      const page = await readStreamPage(pool, head.streamId, done, head.version, batchEvents);
      const last = page.count === 0 ? head.version : page.last;
      const end = page.count < batchEvents || last >= head.version;
      await submit(lane, [{ sessionId: head.sessionId, ...(first ? { begin: beginOf(head, stored) } : {}), end }], page.text);
      if (end) break;
      done = last;
    }
  }
  await flush();
}
