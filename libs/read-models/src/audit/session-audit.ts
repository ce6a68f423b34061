import type pg from 'pg';
import { type SessionEvent, type SessionView, toSessionStreamId } from '#domain';
import type { EventStore, SessionKeyring } from '#event-store';
import { toDomainEvent } from '../session-views.js';
import { type ChainVerdict, verifyChain } from './chain-verification.js';
import type { Difference } from './deep-diff.js';
import { compareReadModels, type ReadModelComparison, type StoredReadModels } from './read-model-comparison.js';
import { indexPassed, readIndexRow, readModelKey, readSnapshots, readSummaryRow } from './stored-read-models.js';
import type { WorkTally } from '../work-tally.js';

/** The served side of the audit: `SessionViews` (of this process or a fresh one) fits. */
export interface ServedViews {
  /** The view this process serves; its folds and renders are added to `tally` when one is given. */
  view(sessionId: string, at?: number, tally?: WorkTally): Promise<{ version: number; view: SessionView; exists: boolean }>;
}

export interface AuditDeps {
  readonly pool: pg.Pool;
  readonly store: EventStore;
  readonly views: ServedViews;
  /** Opens sealed snapshots (content sealed at rest); absent or null: snapshots are stored plain. */
  readonly keyring?: SessionKeyring | null;
}

export interface SessionAudit {
  readonly sessionId: string;
  /** The stream version audited (the head when the audit read it). */
  readonly version: number;
  /** Display transcript hash of the served view (what `GET …/transcript` answers). */
  readonly storedHash: string;
  /** Display transcript hash of the pure replay of the events. */
  readonly replayedHash: string;
  /** Chain intact and no difference in any read model. */
  readonly match: boolean;
  readonly chain: ChainVerdict;
  readonly differences: readonly Difference[];
  /**
   * The session was erased (`SessionErased`): its content is gone by design, so the replay folds it empty; the
   * chain still verifies over the sealed events, and the read models (which hold no content any more) compare.
   */
  readonly erased?: true;
}

export class AuditSessionNotFoundError extends Error {
  readonly code = 'SESSION_NOT_FOUND';
  constructor(readonly sessionId: string) {
    super(`Session ${sessionId} was never started.`);
    this.name = 'AuditSessionNotFoundError';
  }
}

function safeCompare(events: readonly SessionEvent[], stored: StoredReadModels): ReadModelComparison {
  try {
    return compareReadModels(events, stored);
  } catch (error) {
    // Projections do not throw on odd events; if one ever does, that is a finding, not an outage.
    const message = error instanceof Error ? error.message : String(error);
    return { storedHash: '', replayedHash: '', differences: [{ path: 'replay', stored: undefined, replayed: `failed: ${message}` }] };
  }
}

/**
 * Verifies the stream's hash chain, then rebuilds every read model of the session from its events alone and
 * compares: stored snapshots, the inline summary row, the `session_index` row and the view served.
 */
export async function auditSession(deps: AuditDeps, sessionId: string): Promise<SessionAudit> {
  const streamId = toSessionStreamId(sessionId);
  const head = await deps.store.head(streamId);
  if (!head) throw new AuditSessionNotFoundError(sessionId);
  const events = await deps.store.readStream(streamId, { to: head.version });
  const chain = verifyChain(events, head);
  const version = events.length;
  // Checkpoint before the row: once the checkpoint has passed, any row read afterwards is at least that new.
  const indexCaughtUp = await indexPassed(deps.pool, events.at(-1));
  const key = await readModelKey(deps.keyring, streamId);
  const [snapshots, summary, index, served] = await Promise.all([
    readSnapshots(deps.pool, streamId, deps.keyring ?? null),
    readSummaryRow(deps.pool, streamId, key),
    readIndexRow(deps.pool, sessionId, key),
    deps.views.view(sessionId, version),
  ]);
  const comparison = safeCompare(events.map(toDomainEvent), {
    snapshots,
    summary,
    index,
    indexCaughtUp,
    served: served.exists && served.version === version ? served.view : null,
  });
  return {
    sessionId,
    version,
    storedHash: comparison.storedHash,
    replayedHash: comparison.replayedHash,
    match: chain.ok && comparison.differences.length === 0,
    chain,
    differences: comparison.differences,
    ...(events.some((event) => event.type === 'SessionErased') ? { erased: true as const } : {}),
  };
}
