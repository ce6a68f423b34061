import { toSessionStreamId } from '#domain';
import type { SessionKeyring } from '#event-store';
import type { SnapshotStore } from '#read-models';
import { executeSessionCommand } from './session-command.js';
import type { SessionWriter, WriteResult } from './session-writer.js';

export interface EraseSessionRequest {
  readonly sessionId: string;
  readonly reason: string;
  /** Who asked: an API key's name, or `retention`. */
  readonly requestedBy: string;
  /** Epoch seconds. */
  readonly at: number;
}

export interface EraseResult extends WriteResult {
  /** The destroyed data key's id (null: the session's content was never sealed). */
  readonly dataKeyId: string | null;
  /** Snapshots dropped with it. */
  readonly snapshotsPurged: number;
}

/**
 * Erases a session's content (README "Personal data"): records `SessionErased` (the decision, with when, why and
 * by whom; a repeat is a duplicate), then destroys the data key (its content, sealed in the events, can never be
 * read again) and drops the snapshots, whose states held the content. The fold of `SessionErased` keeps nothing of
 * the content, so the summary row written with it, the session index after it and every cached state at or past
 * it hold none. Each step is idempotent: a retry after a crash between them finishes the erasure.
 */
export async function eraseSession(
  deps: { readonly writer: SessionWriter; readonly keyring: SessionKeyring | null; readonly snapshots: SnapshotStore },
  request: EraseSessionRequest,
): Promise<EraseResult> {
  const streamId = toSessionStreamId(request.sessionId);
  const key = deps.keyring === null ? null : await deps.keyring.keyFor(streamId);
  const written = await executeSessionCommand(deps.writer, request.sessionId, {
    type: 'EraseSession',
    data: { at: request.at, reason: request.reason, requestedBy: request.requestedBy, dataKeyId: key?.id ?? null },
  });
  const destroyed = deps.keyring === null ? null : await deps.keyring.destroy(streamId);
  const snapshotsPurged = await deps.snapshots.purge(streamId);
  return { ...written, dataKeyId: key?.id ?? destroyed, snapshotsPurged };
}
