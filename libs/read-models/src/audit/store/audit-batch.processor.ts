import type { StoredIndexRow } from '../../session-index/index-row.builder.js';
import type { SessionAudit } from '../session-audit.js';
import { StreamingSessionAudit } from './streaming-session-audit.js';

/**
 * One stream's events in a batch, as text from the database: JSON is parsed where it is folded (a worker),
 * not on the thread that reads. A stream longer than a batch comes in several parts, the first with `begin`.
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
  readonly versions: readonly number[];
  readonly types: readonly string[];
  readonly datas: readonly string[];
  readonly hashes: readonly string[];
  readonly end: boolean;
}

export interface AuditBatch {
  readonly id: number;
  readonly parts: readonly StreamPart[];
}

export interface BatchResult {
  readonly id: number;
  /** Events folded in this batch. */
  readonly events: number;
  /** Sessions whose last part was in this batch. */
  readonly audits: readonly SessionAudit[];
}

/** Folds and compares batches for a set of sessions; the same code runs in a worker thread or inline. */
export class AuditBatchProcessor {
  private readonly open = new Map<string, StreamingSessionAudit>();

  process(batch: AuditBatch): BatchResult {
    const audits: SessionAudit[] = [];
    let events = 0;
    for (const part of batch.parts) {
      const audit = this.auditOf(part);
      const links = new Array(part.versions.length);
      for (let i = 0; i < links.length; i += 1) {
        links[i] = { version: part.versions[i], type: part.types[i], data: JSON.parse(part.datas[i]), hash: part.hashes[i] };
      }
      audit.feed(links);
      events += links.length;
      if (part.end) {
        this.open.delete(part.sessionId);
        audits.push(audit.finish());
      }
    }
    return { id: batch.id, events, audits };
  }

  private auditOf(part: StreamPart): StreamingSessionAudit {
    const begin = part.begin;
    if (!begin) {
      const open = this.open.get(part.sessionId);
      if (!open) throw new Error(`audit: a later part of ${part.sessionId} came before its first`);
      return open;
    }
    const audit = new StreamingSessionAudit(part.sessionId, begin.head, {
      snapshots: begin.snapshots.map((s) => ({ version: s.version, state: JSON.parse(s.state) as unknown })),
      summary: begin.summary && { version: begin.summary.version, data: JSON.parse(begin.summary.data) as unknown },
      index: begin.index,
      indexCaughtUp: begin.indexCaughtUp,
    });
    if (!part.end) this.open.set(part.sessionId, audit);
    return audit;
  }
}
