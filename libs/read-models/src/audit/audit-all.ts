import { performance } from 'node:perf_hooks';
import { fromSessionStreamId, SESSION_STREAM_PREFIX } from '#domain';
import { type AuditDeps, auditSession, type SessionAudit } from './session-audit.js';

export interface AuditProgress {
  /** Sessions audited so far, and how many streams there were when the audit started. */
  readonly sessions: number;
  readonly total: number;
  readonly mismatches: number;
  readonly eventsReplayed: number;
  readonly seconds: number;
  readonly eventsPerSecond: number;
  /** The session just audited. */
  readonly sessionId: string;
}

export interface AuditAllOptions {
  /** Sessions read per keyset page (default 100). */
  readonly pageSize?: number;
  /** Called after each session. */
  readonly onProgress?: (progress: AuditProgress) => void;
  /** Every session's audit, matching or not (for a streaming caller). */
  readonly onSession?: (audit: SessionAudit) => void;
}

export interface AuditReport {
  readonly sessions: number;
  readonly mismatches: SessionAudit[];
  readonly eventsReplayed: number;
  readonly seconds: number;
}

/**
 * Audits every session, one keyset page of stream ids at a time: memory holds one page of ids and one
 * session's events, whatever the store's size; only mismatches are kept.
 */
export async function auditAll(deps: AuditDeps, options: AuditAllOptions = {}): Promise<AuditReport> {
  const pageSize = options.pageSize ?? 100;
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const counted = await deps.pool.query(
    `SELECT count(*)::int AS total FROM streams WHERE starts_with(stream_id, $1)`,
    [SESSION_STREAM_PREFIX],
  );
  const total: number = counted.rows[0].total;
  const mismatches: SessionAudit[] = [];
  let sessions = 0;
  let eventsReplayed = 0;
  let after = '';
  for (;;) {
    const page = await deps.pool.query(
      `SELECT stream_id FROM streams WHERE starts_with(stream_id, $1) AND stream_id > $2 ORDER BY stream_id LIMIT $3`,
      [SESSION_STREAM_PREFIX, after, pageSize],
    );
    for (const row of page.rows) {
      const sessionId = fromSessionStreamId(String(row.stream_id)) as string;
      const audit = await auditSession(deps, sessionId);
      sessions += 1;
      eventsReplayed += audit.version;
      if (!audit.match) mismatches.push(audit);
      options.onSession?.(audit);
      const elapsed = seconds();
      options.onProgress?.({
        sessions,
        total,
        mismatches: mismatches.length,
        eventsReplayed,
        seconds: elapsed,
        eventsPerSecond: elapsed > 0 ? Math.round(eventsReplayed / elapsed) : 0,
        sessionId,
      });
    }
    if (page.rows.length < pageSize) break;
    after = String(page.rows.at(-1).stream_id);
  }
  return { sessions, mismatches, eventsReplayed, seconds: seconds() };
}
