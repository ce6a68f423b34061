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
 * in full the first time, after a mismatch, and every `fullEveryMs`); the checkpoint then moves past the events
 * of the sessions verified. A session cut off by the bound is verified first in the next pass.
 */
export class ContinuousAuditor {
  private readonly audits: IncrementalSessionAudits;

  constructor(
    private readonly deps: AuditDeps & { readonly store: EventStore },
    private readonly options: ContinuousAuditorOptions,
  ) {
    this.audits = new IncrementalSessionAudits(deps, options);
  }

  async pass(): Promise<SessionAudit[]> {
    const { pool, store } = this.deps;
    const checkpoint = await readCheckpoint(pool, CONTINUOUS_AUDIT);
    const { positions } = await store.readPositions({ after: checkpoint, limit: this.options.eventsPerPass ?? 2000 });
    const sessions: string[] = [];
    let covered = positions.length;
    for (let index = 0; index < positions.length; index += 1) {
      const sessionId = fromSessionStreamId(positions[index]!.streamId);
      if (sessionId === null || sessions.includes(sessionId)) continue;
      if (sessions.length === this.options.sessionsPerPass) {
        covered = index;
        break;
      }
      sessions.push(sessionId);
    }
    const audits: SessionAudit[] = [];
    let replayed = 0;
    let busy = 0;
    for (const [index, sessionId] of sessions.entries()) {
      const length = await this.audits.plan(sessionId);
      if (index > 0 && replayed + length > (this.options.replayBudget ?? Number.POSITIVE_INFINITY)) {
        // Over the budget: this session and the rest wait for the next pass (the checkpoint stops before them).
        covered = positions.findIndex((position) => fromSessionStreamId(position.streamId) === sessionId);
        break;
      }
      replayed += length;
      try {
        const { audit, busySeconds } = await this.audits.audit(sessionId);
        busy += busySeconds;
        audits.push(audit);
        this.options.onVerified?.(audit);
      } catch (error) {
        if (!(error instanceof AuditSessionNotFoundError)) throw error;
      }
    }
    if (covered > 0) {
      // Each origin's cursor moves past the positions of the sessions verified (a prefix of the page).
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
}
