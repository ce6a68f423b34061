import type { FixPoint } from './fix-point.record.js';
import type { SessionState } from '../session-state/session.state.js';

/**
 * The proof state of the commit fast path: the fix point the last commit recorded, kept BESIDE the state it was
 * folded into (keyed by the state object), never inside it. A snapshot is the state's JSON, so it holds no proof;
 * a state read back from one, or built by hand, has none, and its next commit runs the full merge, which records
 * one. It is derived data: it can make a commit cheaper, never change what the commit gives (fix-point.ts).
 *
 * The fold writes one draft object in place and returns it (draft.ts), so the proof is attached to the draft when
 * a fold starts and replaced there at each commit.
 */
const proofs = new WeakMap<SessionState, FixPoint>();

/** The fix point the next commit of `state` may prove its result from; null: it runs the full merge. */
export const proofOf = (state: SessionState): FixPoint | null => proofs.get(state) ?? null;

/** Records (or, with null, forgets) what the next commit of `state` may prove from. */
export function recordProof(state: SessionState, proof: FixPoint | null): void {
  if (proof === null) proofs.delete(state);
  else proofs.set(state, proof);
}

/** After a change the proof does not model (a truncation, a superseded marker): the next commit merges in full. */
export const forgetProof = (state: SessionState): void => recordProof(state, null);

/** A fold starting from `from` continues its proof on `to`, the draft it writes (later events are checked by the proof). */
export function carryProof(from: SessionState, to: SessionState): void {
  recordProof(to, proofOf(from));
}
