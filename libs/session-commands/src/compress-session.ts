import { DomainError } from '#domain';
import type { SessionViews } from '#read-models';
import { executeSessionCommand } from './session-command.js';
import type { SessionWriter, WriteOptions, WriteResult } from './session-writer.js';

export interface CompressSessionData {
  readonly childSessionId: string;
  readonly at: number;
}

/** The parent's write answer, plus the child it continues in and the child's stream version. */
export interface CompressResult extends WriteResult {
  readonly childSessionId: string;
  readonly childVersion: number;
}

/**
 * Compressing a session writes two streams: `SessionCompressed` archives the parent, then
 * `SessionStarted { parentSessionId }` starts the child. No transaction spans two streams, so the order is the
 * rule that makes a retry complete both: each step repeated is a duplicate. The child must be new or already
 * this parent's continuation (checked before anything is written): a parent is never archived into a stranger.
 *
 * `options` (the client's precondition, idempotency key, request id) apply to the parent's write; the child's
 * start carries the request id only.
 */
export async function compressSession(
  writer: SessionWriter,
  views: SessionViews,
  parentId: string,
  data: CompressSessionData,
  options: WriteOptions = {},
): Promise<CompressResult> {
  const { childSessionId, at } = data;
  const child = await views.load(childSessionId);
  if (child.exists && child.state.parentSessionId !== parentId) {
    throw new DomainError('SESSION_ALREADY_EXISTS', `Session ${childSessionId} exists and is not a continuation of ${parentId}.`);
  }
  const parent = await executeSessionCommand(writer, parentId, { type: 'CompressSession', data: { childSessionId, at } }, options);
  // A child that already continues this parent (started by its client with a title of its own, or by an earlier
  // attempt) is not started again: a start with other attributes would be refused after the parent was archived.
  if (child.exists) return { ...parent, childSessionId, childVersion: child.version };
  const started = await executeSessionCommand(
    writer,
    childSessionId,
    { type: 'StartSession', data: { sessionId: childSessionId, parentSessionId: parentId, title: null, createdAt: at } },
    { requestId: options.requestId },
  );
  return { ...parent, childSessionId, childVersion: started.version };
}
