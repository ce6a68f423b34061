import type { SessionEvent } from '#domain/replay';
import { openSnapshotText, readableEventData, readableEventsData, runMemberOf } from '#event-store/seal';
import type { StoredIndexRow } from '../../session-index/index-row.builder.js';
import { openIndexRow, openSummaryData, type SealedRow } from '../../read-model-content.js';
import type { ChainVerdict } from '../chain-verification.js';
import type { SessionAudit } from '../session-audit.js';
import { StreamingSessionAudit } from './streaming-session-audit.js';

/**
 * One stream's share of a batch. A stream longer than a batch comes in several parts, the first with `begin`
 * (stored models as text: parsed by the worker, a snapshot only when the fold reaches its version). The last
 * part carries the verdict of the stream's hash chain, followed by the reading thread (`PackedChains`).
 */
export interface StreamPart {
  readonly sessionId: string;
  readonly begin?: {
    readonly head: { readonly version: number; readonly lastHash: string };
    /** The stream id, and its data key (base64; null when it has none: content stored plain, or erased). */
    readonly streamId: string;
    readonly dataKey: string | null;
    readonly snapshots: readonly { readonly version: number; readonly state: string }[];
    readonly summary: { readonly version: number; readonly data: string } | null;
    /** As stored: its title and pending prompt still sealed (`sealed`) when a key sealed them. */
    readonly index: SealedRow<StoredIndexRow> | null;
    readonly indexCaughtUp: boolean;
  };
  readonly end: boolean;
  /** The chain's verdict, on the part that ends the stream. */
  readonly chain?: ChainVerdict;
}

/**
 * A batch as a fold lane receives it (`PackedChains.toBatch` builds it from the packed text, its chains
 * followed): each part's count of events, each event's type, and the events' data as the stored texts joined
 * into JSON arrays of `DATA_SLICE` events, parsed one slice at a time (one `JSON.parse` per slice costs a third
 * less than one per text, measured on the audit bench's ~100-byte events), in part and version order.
 */
export interface AuditBatch {
  readonly id: number;
  readonly parts: readonly StreamPart[];
  /** How many of the batch's events are each part's, in part order. */
  readonly counts: readonly number[];
  /** Each event's type, as its index in `typeNames`. */
  readonly types: Uint16Array | Uint32Array;
  readonly typeNames: readonly string[];
  /** Each event's schema version (`metadata.schema`), upcast from before it is folded. */
  readonly schemas: Uint16Array;
  readonly data: readonly string[];
}

/** Events per slice of a batch's data, and per feed: what an event holds dies young (a scavenge), not after the whole batch. */
export const DATA_SLICE = 256;

export interface BatchResult {
  readonly id: number;
  /** Events folded in this batch. */
  readonly events: number;
  /** Sessions whose last part was in this batch. */
  readonly audits: readonly SessionAudit[];
}

/** An event as the audit reads it from the table: its type, its stored data and its schema version. */
interface StoredForm {
  readonly type: string;
  readonly data: unknown;
  readonly schema: number;
}

/**
 * One slice of a batch's data: the stored texts of `count` events joined as a JSON array. A json column holds
 * one JSON value per row, so the array has one item per event. A text that is not one JSON value (the column
 * forbids it) makes the slice fail to parse or count wrong, and the audit fails; only texts that are not JSON
 * values and balance each other out (`1,[2` then `3]`, which the column cannot hold) could shift the data.
 */
function parseSlice(text: string, count: number): readonly unknown[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed) || parsed.length !== count) throw new Error('audit: a slice of event data that is not one JSON value per event');
  return parsed;
}

/**
 * Folds and compares batches for a set of sessions; the same code runs in a worker thread or inline. The chains
 * are not followed here: each stream's last part brings its verdict.
 */
export class AuditBatchProcessor {
  private readonly open = new Map<string, StreamingSessionAudit>();
  /** Each open stream's id and data key, for its later parts. */
  private readonly keys = new Map<string, { readonly streamId: string; readonly key: Buffer | null }>();
  /** Each open stream's sealed run so far, when a slice or a part ended inside one. */
  private readonly runs = new Map<string, StoredForm[]>();

  process(batch: AuditBatch): BatchResult {
    const audits: SessionAudit[] = [];
    const total = batch.types.length;
    if (batch.data.length !== Math.ceil(total / DATA_SLICE)) throw new Error(`audit: a batch of ${total} events with ${batch.data.length} slices of data`);
    let event = 0;
    let slice: readonly unknown[] = [];
    let sliceIndex = -1;
    batch.parts.forEach((part, p) => {
      const audit = this.auditOf(part);
      const sealing = this.keyOf(part);
      const end = event + batch.counts[p];
      if (end > total) throw new Error('audit: a batch whose parts count more events than it holds');
      while (event < end) {
        const k = Math.floor(event / DATA_SLICE);
        if (k !== sliceIndex) {
          slice = parseSlice(batch.data[k] as string, Math.min(DATA_SLICE, total - k * DATA_SLICE));
          sliceIndex = k;
        }
        const to = Math.min(end, (k + 1) * DATA_SLICE);
        const events: SessionEvent[] = [];
        for (let i = event; i < to; i += 1) {
          this.decode(part.sessionId, sealing, { type: batch.typeNames[batch.types[i]], data: slice[i - k * DATA_SLICE], schema: batch.schemas[i] }, events);
        }
        audit.feedUnchained(events);
        event = to;
      }
      if (part.end) {
        if (part.chain === undefined) throw new Error(`audit: the last part of ${part.sessionId} came without its chain's verdict`);
        const cut = this.runs.get(part.sessionId);
        if (cut !== undefined) audit.feedUnchained(this.unopened(part.sessionId, sealing, cut));
        this.open.delete(part.sessionId);
        this.keys.delete(part.sessionId);
        audits.push(audit.finish(undefined, part.chain));
      }
    });
    if (event !== total) throw new Error('audit: a batch holding events of no part');
    return { id: batch.id, events: total, audits };
  }

  /**
   * One stored event, readable, onto `out`; a member of a sealed run waits (across slices and parts) for the rest
   * of its run, which opens with one call. A run cut short or out of order (an edited table: its chain breaks
   * there) reads as erased content.
   */
  private decode(sessionId: string, sealing: { readonly streamId: string; readonly key: Buffer | null }, stored: StoredForm, out: SessionEvent[]): void {
    const pending = this.runs.get(sessionId);
    const member = sealing.key === null ? null : runMemberOf(stored.data);
    if (member === null || (member.index !== 0 && pending?.length !== member.index)) {
      if (pending !== undefined) out.push(...this.unopened(sessionId, sealing, pending));
      out.push(...this.unopened(sessionId, sealing, [stored]));
      return;
    }
    let run = pending;
    if (member.index === 0) {
      if (pending !== undefined) out.push(...this.unopened(sessionId, sealing, pending));
      run = [];
    }
    (run as StoredForm[]).push(stored);
    if ((run as StoredForm[]).length < member.size) {
      this.runs.set(sessionId, run as StoredForm[]);
      return;
    }
    this.runs.delete(sessionId);
    const data = readableEventsData(sealing.key, sealing.streamId, run as StoredForm[]);
    (run as StoredForm[]).forEach((one, m) => out.push({ type: one.type, data: data[m] } as unknown as SessionEvent));
  }

  /** Events read one by one: a run member alone does not open (it reads as erased, as `readableEventData` reads it). */
  private unopened(sessionId: string, sealing: { readonly streamId: string; readonly key: Buffer | null }, events: readonly StoredForm[]): SessionEvent[] {
    this.runs.delete(sessionId);
    return events.map((one) => {
      const key = runMemberOf(one.data) === null ? sealing.key : null;
      return { type: one.type, data: readableEventData(key, sealing.streamId, one.type, one.data, one.schema) } as unknown as SessionEvent;
    });
  }

  private keyOf(part: StreamPart): { readonly streamId: string; readonly key: Buffer | null } {
    if (part.begin) {
      const sealing = { streamId: part.begin.streamId, key: part.begin.dataKey === null ? null : Buffer.from(part.begin.dataKey, 'base64') };
      if (!part.end) this.keys.set(part.sessionId, sealing);
      return sealing;
    }
    const sealing = this.keys.get(part.sessionId);
    if (!sealing) throw new Error(`audit: a later part of ${part.sessionId} came before its first`);
    return sealing;
  }

  private auditOf(part: StreamPart): StreamingSessionAudit {
    const begin = part.begin;
    if (!begin) {
      const open = this.open.get(part.sessionId);
      if (!open) throw new Error(`audit: a later part of ${part.sessionId} came before its first`);
      return open;
    }
    const key = begin.dataKey === null ? null : Buffer.from(begin.dataKey, 'base64');
    const audit = new StreamingSessionAudit(part.sessionId, begin.head, {
      snapshots: begin.snapshots.map((s) => ({
        version: s.version,
        state: () => {
          const text = openSnapshotText(key, begin.streamId, s.state);
          return text === null ? null : (JSON.parse(text) as unknown);
        },
      })),
      summary: begin.summary && { version: begin.summary.version, data: openSummaryData(key, begin.streamId, JSON.parse(begin.summary.data)) },
      index: begin.index && openIndexRow(key, begin.streamId, begin.index),
      indexCaughtUp: begin.indexCaughtUp,
    });
    if (!part.end) this.open.set(part.sessionId, audit);
    return audit;
  }
}
