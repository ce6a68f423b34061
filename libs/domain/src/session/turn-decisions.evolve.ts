import type {
  TranscriptTruncatedData,
  TurnInterruptedData,
  TurnRecoveredFromAgentStoreData,
  TurnSettledData,
} from '../events/session.events.js';
import type { MessageRow } from '../messages/message-row.js';
import { canSupersede } from './marker-supersede.policy.js';
import { reachFixPoint } from '../fast-path/fix-point.js';
import { forgetProof } from '../fast-path/fix-point.proof.js';
import { seqRangesOf } from '../journal/journal-chunks.js';
import { advanceWatermark, ownRun, touch, type Draft } from '../session-state/draft.js';
import { type Transient } from '../session-state/transient.js';
import { isMultipartUser, unmirror, type TurnPrompt } from '../session-state/prompt-mirror.js';
import { isRunSlot, storedRunOf, type CommittedEntry, type PendingTurnView } from '../session-state/session.state.js';
import { effectiveStateRows } from '../session-state/state-rows.js';
import { expandCommitted, pendingPromptRow } from '../session-state/transcript.expand.js';
import { collapseMerged, mergeWithSources } from '../session-state/transcript.merge.js';

/**
 * A commit (a settle or a recovery decision) first fixes the merged display the turn ran on (S merged with T,
 * rows the pending turn holds back excluded) as the new S, then lands the turn. Agent rows shown then (an
 * external gateway turn seen before this UI turn) stay shown, even where a merge of the final lists alone would
 * drop them because the new turn's rows are newer. The fix point is exactly the full merge's, proven or run
 * (fast-path/fix-point.ts). Returns the state rows it adopted. `landing`: the pending turn it lands, whose agent
 * mirror (prompt-mirror.ts) it does not adopt.
 */
function commitDisplay(transient: Transient, draft: Draft, landing: TurnPrompt | null = null): readonly MessageRow[] {
  const { committed, adopted } = reachFixPoint(draft, transient, landing);
  if (committed !== draft.committed) draft.committed = transient.adopt(committed as CommittedEntry[]);
  return adopted;
}

export function onTurnSettled(transient: Transient, draft: Draft, data: TurnSettledData): void {
  touch(draft, data.settledAt);
  const run = storedRunOf(draft, data.runId);
  if (run?.outcome === 'settled' || run?.outcome === 'recovered_from_agent_store') return;
  if (run?.outcome === 'interrupted') {
    // Only the finished worker of the marker's own turn may replace it (the decider refuses the rest).
    if (!canSupersede(draft, data.runId) || run.interruption === null) return;
    draft.committed = transient.adopt(draft.committed.filter((entry) => !(isRunSlot(entry) && entry.slot === data.runId)));
    forgetProof(draft);
    ownRun(transient, draft, data.runId).interruption = { ...run.interruption, superseded: true };
  }
  commitDisplay(transient, draft);
  if (draft.pending?.runId === data.runId) draft.pending = null;
  const committed = transient.ownArray(draft.committed);
  draft.committed = committed;
  for (const row of data.rows) {
    committed.push(row);
    if (row.role === 'user') draft.watermark = advanceWatermark(draft.watermark, row.timestamp ?? data.settledAt);
  }
  const settled = ownRun(transient, draft, data.runId);
  settled.outcome = 'settled';
  // Nothing derives from the journal of a run settled without a decision: only its seqs are kept.
  if (settled.interruption === null) {
    settled.archivedSeqs = seqRangesOf(settled.journal);
    settled.journal = [];
  }
  draft.latestRunId = data.runId;
}

/** The pending turn the decision names (`runId: null` names the pending turn, whatever its id). */
function decidedTurn(draft: Draft, runId: string | null): string | null {
  const pending = draft.pending;
  if (pending === null || (runId !== null && runId !== pending.runId)) return null;
  return storedRunOf(draft, pending.runId)?.outcome == null ? pending.runId : null;
}

export function onTurnInterrupted(transient: Transient, draft: Draft, data: TurnInterruptedData): void {
  touch(draft, data.detectedAt);
  const runId = decidedTurn(draft, data.runId);
  if (runId === null || draft.pending === null) return;
  const turn = draft.pending;
  // The run's slot derives the prompt row (§4.4), which stands for the agent's mirror of it: not adopted.
  commitDisplay(transient, draft, landingOf(turn));
  const run = ownRun(transient, draft, runId);
  run.outcome = 'interrupted';
  run.interruption = {
    cause: data.cause,
    detectedAt: data.detectedAt,
    evidence: data.evidence,
    turn,
    abandoned: false,
    superseded: false,
  };
  draft.pending = null;
  draft.committed = transient.ownArray(draft.committed);
  (draft.committed as unknown[]).push({ slot: runId });
  draft.interruptedRuns = transient.ownArray(draft.interruptedRuns);
  (draft.interruptedRuns as string[]).push(runId);
  draft.watermark = advanceWatermark(draft.watermark, Math.trunc(turn.submittedAt));
  draft.latestRunId = runId;
}

const landingOf = (turn: PendingTurnView): TurnPrompt => ({ index: null, text: turn.text, submittedAt: turn.submittedAt });

/**
 * The prompt row an agent-store recovery commits when the agent stores the prompt as a multipart mirror of it
 * (prompt-mirror.ts): the prompt as submitted (text, `submittedAt`, attachments), carrying the mirror's rowId so
 * the two stay paired; null when the agent rows hold the prompt as the UI shows it (they are adopted as such).
 */
function mirroredPromptRow(draft: Draft, turn: PendingTurnView): MessageRow | null {
  const stateRows = effectiveStateRows(draft.stateRows, null);
  if (!stateRows.some(isMultipartUser)) return null;
  const { rows, prompts } = expandCommitted(draft, { withContext: false, withPending: false });
  const pair = unmirror(rows, [...prompts, landingOf(turn)], stateRows).pairs.find((candidate) => candidate.prompt === null);
  return pair === undefined ? null : { ...pendingPromptRow(turn), rowId: pair.agentRow.rowId };
}

export function onTurnRecoveredFromAgentStore(
  transient: Transient,
  draft: Draft,
  data: TurnRecoveredFromAgentStoreData,
): void {
  touch(draft, data.detectedAt);
  const runId = decidedTurn(draft, data.runId);
  if (runId === null || draft.pending === null) return;
  const turn = draft.pending;
  ownRun(transient, draft, runId).outcome = 'recovered_from_agent_store';
  draft.pending = null;
  draft.latestRunId = runId;
  // An agent mirror of the prompt is shown as the submitted prompt row (D3): commit that row, paired with it.
  const promptRow = mirroredPromptRow(draft, turn);
  if (promptRow !== null) {
    draft.committed = transient.ownArray(draft.committed);
    (draft.committed as CommittedEntry[]).push(promptRow);
  }
  const adopted = commitDisplay(transient, draft);
  // The agent rows hold the prompt: adopting them commits it, so they move the watermark (§2.5 R9).
  const adoptedPrompt = promptRow ?? adopted.findLast((row) => row.role === 'user');
  draft.watermark = advanceWatermark(draft.watermark, adoptedPrompt?.timestamp ?? Math.trunc(turn.submittedAt));
}

function lastTimestamp(rows: readonly MessageRow[], count: number): number {
  for (let index = count - 1; index >= 0; index -= 1) {
    const timestamp = rows[index].timestamp;
    if (typeof timestamp === 'number' && Number.isFinite(timestamp)) return timestamp;
  }
  return 0;
}

/**
 * Keeps the first `keepCount` rows of the committed display (a pending prompt is not part of it and stays
 * pending) and sets W = B = the timestamp of the last kept row that has one (0 when none; always 0 for clear).
 */
export function onTranscriptTruncated(transient: Transient, draft: Draft, data: TranscriptTruncatedData): void {
  touch(draft, data.at);
  const expansion = expandCommitted(draft, { withContext: false, withPending: false });
  const landing = draft.pending === null ? null : landingOf(draft.pending);
  const merged = mergeWithSources(expansion, effectiveStateRows(draft.stateRows, draft.pending), draft, landing);
  const keep = Math.max(0, Math.min(data.keepCount, merged.rows.length));
  draft.committed = transient.adopt(collapseMerged(draft.committed, expansion, merged, keep).committed);
  // The cut and the new W and B change what the next merge keeps (a row cut off may come back past the
  // watermark): nothing recorded before holds, so the next commit runs the full merge.
  forgetProof(draft);
  const cut = data.reason === 'clear' ? 0 : lastTimestamp(merged.rows, keep);
  draft.watermark = cut;
  draft.boundary = cut;
}
