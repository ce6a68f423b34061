import { fromSessionStreamId } from '#domain';
import { acrossSessions, advanceCursor, engineOf, type EventStore } from '#event-store';
import { advanceCheckpoint, readCheckpoint } from '../projection-checkpoints.js';
import { LAG_CAP } from '../session-index/session-index.projector.js';
import { type IncrementalAuditOptions, IncrementalSessionAudits } from './incremental-session-audit.js';
import { type AuditDeps, AuditSessionNotFoundError, type SessionAudit } from './session-audit.js';

/** Its checkpoint in `projection_checkpoints`: the events whose sessions it has verified since. */
export const CONTINUOUS_AUDIT = 'continuous_audit';

export interface ContinuousAuditorOptions extends IncrementalAuditOptions {
  /** Sessions verified per pass at most (the bound on its work per interval). */
  readonly sessionsPerPass: number;
  /** Positions (events past the checkpoint) looked at per pass at most. */
  readonly eventsPerPass?: number;
  /**
   * Events replayed per pass at most (the sum of what each verified session replays: its events after the
   * snapshot it resumes from, all of them when audited in full, plus a quarter of its length for rendering and
   * comparing its view), so on long streaming sessions the session count alone does not bound the work. The first session of a pass is always verified, so the auditor never stalls.
   */
  readonly replayBudget?: number;
  readonly onVerified?: (audit: SessionAudit) => void;
  /** Events past its checkpoint after a pass (at most LAG_CAP). */
  readonly onLag?: (events: number) => void;
  /** After each pass: seconds of its audits' own synchronous work (their share of the process's CPU; not the reads). */
  readonly onPass?: (busySeconds: number, sessions: number) => void;
}

/**
 * Re-verifies, a bounded amount per pass, every session that changed since its checkpoint: the events past the
 * checkpoint (commit-safe order, as the projector reads them) name the sessions; each is audited at its head,
 * incrementally (`IncrementalSessionAudits`: the chain from the newest snapshot it verified before, the fold
 * resumed from that snapshot, every stored model written after it and the served view against the replay;
 * in full the first time, after a mismatch, and every `fullEveryMs`). An audit at its head covers every event of
 * the session up to that version, so the auditor remembers the version each session was audited at: a session
 * whose events in the page are all at or below it is not audited again, and the checkpoint moves past the
 * longest prefix of the page whose events are covered. A session cut off by the bound is verified first in the
 * next pass. (Moving only past the sessions audited in this pass, as before, stalled on sessions written in
 * turns: one audited session moved the checkpoint to the next one's first event, a position or two, and the
 * next pass audited the same sessions again; bench/README.md, "The continuous auditor after a burst".)
 */
export class ContinuousAuditor {
  private readonly audits: IncrementalSessionAudits;
  /** The version each session was last audited at (its head then), least recently audited first. */
  private readonly auditedAt = new Map<string, number>();
  private readonly remember: number;

  constructor(
    private readonly deps: AuditDeps & { readonly store: EventStore },
    private readonly options: ContinuousAuditorOptions,
  ) {
    this.audits = new IncrementalSessionAudits(deps, options);
    this.remember = options.remember ?? 10_000;
  }

  async pass(): Promise<SessionAudit[]> {
    const { pool, store } = this.deps;
    const checkpoint = await readCheckpoint(pool, CONTINUOUS_AUDIT);
    const { positions } = await store.readPositions({ after: checkpoint, limit: this.options.eventsPerPass ?? 2000 });
    // The sessions with an event in the page that no audit covered yet, in page order, up to the pass's bound.
    const sessions: string[] = [];
    for (const position of positions) {
      const sessionId = fromSessionStreamId(position.streamId);
      if (sessionId === null || this.covered(sessionId, position.version) || sessions.includes(sessionId)) continue;
      if (sessions.length === this.options.sessionsPerPass) break;
      sessions.push(sessionId);
    }
    const audits: SessionAudit[] = [];
    let replayed = 0;
    let busy = 0;
    for (const [index, sessionId] of sessions.entries()) {
      const length = await this.audits.plan(sessionId);
      // Over the budget: this session and the rest wait for the next pass (the checkpoint stops before them).
      if (index > 0 && replayed + length > (this.options.replayBudget ?? Number.POSITIVE_INFINITY)) break;
      replayed += length;
      try {
        const { audit, busySeconds } = await this.audits.audit(sessionId);
        busy += busySeconds;
        audits.push(audit);
        this.options.onVerified?.(audit);
        this.audited(sessionId, audit.version);
      } catch (error) {
        if (!(error instanceof AuditSessionNotFoundError)) throw error;
        // Never started: nothing of it to verify; its events in this page are passed.
        this.audited(sessionId, Math.max(...positions.filter((p) => fromSessionStreamId(p.streamId) === sessionId).map((p) => p.version)));
      }
    }
    // The longest prefix of the page whose events an audit covers (events of other streams than sessions' too).
    const firstUncovered = positions.findIndex((position) => {
      const sessionId = fromSessionStreamId(position.streamId);
      return sessionId !== null && !this.covered(sessionId, position.version);
    });
    const covered = firstUncovered === -1 ? positions.length : firstUncovered;
    if (covered > 0) {
      // Each origin's cursor moves past the covered positions (a prefix of the page).
      const reached = advanceCursor(checkpoint, positions.slice(0, covered));
      const client = await pool.connect();
      try {
        await acrossSessions(client, await engineOf(pool), () => advanceCheckpoint(client, CONTINUOUS_AUDIT, reached));
      } finally {
        client.release();
      }
    }
    this.options.onPass?.(busy, audits.length);
    if (this.options.onLag) this.options.onLag(await store.countPast(await readCheckpoint(pool, CONTINUOUS_AUDIT), LAG_CAP));
    return audits;
  }

  /** Whether an audit of this process covered the session's event at `version` (it was audited at or after it). */
  private covered(sessionId: string, version: number): boolean {
    return (this.auditedAt.get(sessionId) ?? 0) >= version;
  }

  private audited(sessionId: string, version: number): void {
    this.auditedAt.delete(sessionId);
    this.auditedAt.set(sessionId, version);
    if (this.auditedAt.size > this.remember) this.auditedAt.delete(this.auditedAt.keys().next().value as string);
  }
}
