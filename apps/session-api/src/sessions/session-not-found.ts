import type { ErasureRecord, SessionState } from '#domain';
import { ProblemError } from '#platform';
import type { SessionViews } from '#read-models';

/** The contract's answer for every route under /v1/sessions/{id} of a session that was never started. */
export const sessionNotFound = (sessionId: string) =>
  new ProblemError(404, 'SESSION_NOT_FOUND', `Session ${sessionId} was never started.`);

/** The answer for every read of an erased session (README "Personal data"): 410, when and why, no content. */
export const sessionErased = (sessionId: string, erased: ErasureRecord) =>
  new ProblemError(410, 'SESSION_ERASED', `Session ${sessionId} was erased at ${new Date(erased.at * 1000).toISOString()} (${erased.reason}); its content is gone.`);

/**
 * 410 for a session erased at its head, whatever version a read asks for (time travel included). The state at
 * the stream's current version, not the one this process last held: another replica may have erased it since
 * (`atHead`: that state, when the caller folded the head already).
 */
export async function refuseErased(views: SessionViews, sessionId: string, atHead?: SessionState): Promise<void> {
  const state = atHead ?? (await views.load(sessionId)).state;
  if (state.erased !== null) throw sessionErased(sessionId, state.erased);
}
