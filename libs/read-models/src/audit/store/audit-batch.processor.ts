import type { StoredIndexRow } from '../../session-index/index-row.builder.js';
import type { ChainLink } from '../chain-verification.js';
import type { SessionAudit } from '../session-audit.js';
import { PACKED_FIELD, PACKED_RECORD } from './packed-events.format.js';
import { StreamingSessionAudit } from './streaming-session-audit.js';

/**
 * One stream's share of a batch. A stream longer than a batch comes in several parts, the first with `begin`
 * (stored models as text: parsed by the worker, a snapshot only when the fold reaches its version).
 */
export interface StreamPart {
  readonly sessionId: string;
  readonly begin?: {
    readonly head: { readonly version: number; readonly lastHash: string };
    readonly snapshots: readonly { readonly version: number; readonly state: string }[];
    readonly summary: { readonly version: number; readonly data: string } | null;
    readonly index: StoredIndexRow | null;
    readonly indexCaughtUp: boolean;
  };
  readonly end: boolean;
}

/** Parts and their events as one packed text (`store-audit.reader.ts`): a line's first field is its part, from 1. */
export interface AuditBatch {
  readonly id: number;
  readonly parts: readonly StreamPart[];
  readonly events: string;
}

export interface BatchResult {
  readonly id: number;
  /** Events folded in this batch. */
  readonly events: number;
  /** Sessions whose last part was in this batch. */
  readonly audits: readonly SessionAudit[];
}

const FEED_LINKS = 256;
const TYPES_KEPT = 256;

/** A link whose data is parsed with the others of its slice (`withData`), just before they are fed. */
interface PendingLink {
  readonly version: number;
  readonly type: string;
  data: unknown;
  readonly hash: string;
  readonly text: string;
}

/**
 * Parses the data of a slice of links in one `JSON.parse` of their texts joined as an array: a third less time
 * than a parse per text, measured on the audit bench's events (~100-byte objects). A json column holds one
 * JSON value per row, so the array has one item per link; should it not, or should a text not parse (not
 * json, which the column forbids), each is parsed alone, as before, and the one that fails throws.
 */
function withData(links: PendingLink[]): ChainLink[] {
  if (links.length === 0) return links;
  let parsed: unknown;
  try {
    parsed = JSON.parse(`[${links.map((link) => link.text).join(',')}]`);
  } catch {
    parsed = null;
  }
  if (Array.isArray(parsed) && parsed.length === links.length) {
    for (let i = 0; i < links.length; i += 1) links[i].data = parsed[i];
  } else {
    for (const link of links) link.data = JSON.parse(link.text) as unknown;
  }
  return links;
}

/** Folds and compares batches for a set of sessions; the same code runs in a worker thread or inline. */
export class AuditBatchProcessor {
  private readonly open = new Map<string, StreamingSessionAudit>();
  /**
   * Each event type's text, once: a link keeps this copy, not a slice that would hold the whole batch text
   * alive (a handful of types; a store with more, edited ones, gets slices past TYPES_KEPT).
   */
  private readonly types = new Map<string, string>();
  private lastType = '';

  process(batch: AuditBatch): BatchResult {
    const audits: SessionAudit[] = [];
    const text = batch.events;
    let events = 0;
    let part = -1;
    let audit: StreamingSessionAudit | null = null;
    let links: PendingLink[] = [];
    // Fed a few hundred links at a time: what a link holds dies young (a scavenge), not after the whole batch.
    const finishPart = () => {
      if (audit === null) return;
      audit.feed(withData(links));
      links = [];
      const done = batch.parts[part];
      if (done.end) {
        this.open.delete(done.sessionId);
        audits.push(audit.finish());
      }
    };
    // Finishes the open part, then each part without lines before `next`, and opens `next` (none past the last).
    const openPart = (next: number) => {
      finishPart();
      for (part += 1; part < next; part += 1) {
        audit = this.auditOf(batch.parts[part]);
        finishPart();
      }
      audit = part < batch.parts.length ? this.auditOf(batch.parts[part]) : null;
    };
    for (let at = 0; at < text.length; ) {
      let end = text.indexOf(PACKED_RECORD, at);
      if (end < 0) end = text.length;
      const linePart = this.decode(text, at, end, batch.parts.length);
      if (linePart !== part) {
        if (linePart < part) throw new Error('audit: packed lines out of part order');
        openPart(linePart);
      }
      links.push(this.link(text, at, end));
      if (links.length === FEED_LINKS) {
        (audit as StreamingSessionAudit | null)?.feed(withData(links));
        links = [];
      }
      events += 1;
      at = end + 1;
    }
    openPart(batch.parts.length);
    return { id: batch.id, events, audits };
  }

  /** The line's part (0-based). */
  private decode(text: string, at: number, end: number, parts: number): number {
    const tab = text.indexOf(PACKED_FIELD, at);
    const part = Number(text.slice(at, tab)) - 1;
    if (!(part >= 0 && part < parts) || tab > end) throw new Error('audit: a packed line names no part of its batch');
    return part;
  }

  private link(text: string, at: number, end: number): PendingLink {
    const t1 = text.indexOf(PACKED_FIELD, at) + 1;
    const t2 = text.indexOf(PACKED_FIELD, t1) + 1;
    const t3 = text.indexOf(PACKED_FIELD, t2) + 1;
    const t4 = text.indexOf(PACKED_FIELD, t3) + 1;
    const version = Number(text.slice(t1, t2 - 1));
    const hash = text.slice(t2, t3 - 1);
    const type = this.typeOf(text, t3, t4 - 1);
    return { version, type, data: undefined, hash, text: text.slice(t4, end) };
  }

  /** The type written at `text[from, to)`: most lines repeat the line before's, which is checked first, in place. */
  private typeOf(line: string, from: number, to: number): string {
    const last = this.lastType;
    if (to - from === last.length && line.startsWith(last, from)) return last;
    const text = line.slice(from, to);
    let type = this.types.get(text);
    if (type === undefined) {
      // A flat copy of the slice (the Map's key is the slice itself).
      type = [...text].join('');
      if (this.types.size < TYPES_KEPT) this.types.set(type, type);
    }
    this.lastType = type;
    return type;
  }

  private auditOf(part: StreamPart): StreamingSessionAudit {
    const begin = part.begin;
    if (!begin) {
      const open = this.open.get(part.sessionId);
      if (!open) throw new Error(`audit: a later part of ${part.sessionId} came before its first`);
      return open;
    }
    const audit = new StreamingSessionAudit(part.sessionId, begin.head, {
      snapshots: begin.snapshots.map((s) => ({ version: s.version, state: () => JSON.parse(s.state) as unknown })),
      summary: begin.summary && { version: begin.summary.version, data: JSON.parse(begin.summary.data) as unknown },
      index: begin.index,
      indexCaughtUp: begin.indexCaughtUp,
    });
    if (!part.end) this.open.set(part.sessionId, audit);
    return audit;
  }
}
