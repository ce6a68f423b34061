import type { JournalEvent, ToolCard } from '../messages/message-row.js';
import { createDraft, ensureAnchor, flush, type Draft } from './journal-flush.materialiser.js';
import { isTerminalEvent, summarizeJournal } from './journal-summary.projection.js';
import { payloadText } from './journal-text.helpers.js';
import type { MaterialiseJournalInput, MaterialiseJournalResult } from './journal.types.js';
import {
  buildRecoveredToolCard,
  completeToolCard,
  hasEquivalentToolCard,
  toolEventName,
} from './tool-card.factory.js';

function eventTime(event: JournalEvent): number | null {
  return Number.isFinite(event.createdAt) ? event.createdAt : null;
}

function onReasoning(draft: Draft, event: JournalEvent): void {
  const text = payloadText(event.payload, 'text', 'reasoning', 'thinking');
  if (text === '') return;
  if (draft.text === '' && draft.reasoning === '') draft.startedAt = eventTime(event);
  draft.reasoning += text;
}

function onToken(draft: Draft, event: JournalEvent): void {
  const text = payloadText(event.payload, 'text');
  if (text === '') return;
  if (draft.text === '') draft.startedAt = eventTime(event);
  draft.text += text;
}

/** A progress sentence closes the row it joins; `already_streamed` ones only repeat journaled tokens. */
function onInterim(draft: Draft, event: JournalEvent): void {
  if (event.payload?.['already_streamed']) return flush(draft);
  const text = payloadText(event.payload, 'text').trim();
  if (text === '') return;
  if (draft.text === '') draft.startedAt = eventTime(event);
  else if (!draft.text.endsWith('\n') && !draft.text.endsWith(' ')) draft.text += '\n\n';
  draft.text += text;
  flush(draft);
}

function onTool(draft: Draft, event: JournalEvent, existing: readonly ToolCard[], added: ToolCard[]): void {
  flush(draft);
  const card = buildRecoveredToolCard(event.payload, draft.runId, 0);
  // Checked before anchoring so a re-run never leaves an empty anchor with no card under it.
  if (draft.dedupe && hasEquivalentToolCard(existing, card, draft.runId)) return;
  const anchor = ensureAnchor(draft, event.createdAt);
  added.push({ ...card, assistantMessageIndex: anchor });
  draft.recovered = true;
}

function onToolComplete(event: JournalEvent, added: ToolCard[]): void {
  const name = toolEventName(event.payload);
  const index = added.findLastIndex((card) => !card.done && (name === '' || card.name === name));
  if (index >= 0) added[index] = completeToolCard(added[index], event.payload);
}

/**
 * One journal event of §3.7's pass, applied to the pass's draft: the one step of `materialiseJournal` and of the
 * pending turn's streaming fold (session/streaming-output.ts), which applies it one event at a time across versions.
 * `existing` are the tool cards already held (for `dedupeExisting`), `added` the cards the pass adds.
 */
export function materialiseEvent(draft: Draft, event: JournalEvent, existing: readonly ToolCard[], added: ToolCard[]): void {
  switch (event.event) {
    case 'reasoning':
      onReasoning(draft, event);
      break;
    case 'token':
      onToken(draft, event);
      break;
    case 'interim_assistant':
      onInterim(draft, event);
      break;
    case 'tool':
      onTool(draft, event, existing, added);
      break;
    case 'tool_complete':
      onToolComplete(event, added);
      break;
    default:
      if (isTerminalEvent(event)) flush(draft);
  }
}

/**
 * §3.7: turns a run's journal into recovered assistant rows (display, and context without
 * reasoning) and tool cards, appended after the current rows. With `dedupeExisting` a re-run
 * reuses what an earlier pass or the UI already holds instead of adding copies.
 */
export function materialiseJournal(input: MaterialiseJournalInput): MaterialiseJournalResult {
  const { events } = summarizeJournal(input.runId, input.events);
  const draft = createDraft(input);
  const added: ToolCard[] = [];
  for (const event of events) materialiseEvent(draft, event, input.toolCards, added);
  flush(draft);
  return {
    rows: draft.rows,
    context: draft.context,
    toolCards: [...input.toolCards, ...added],
    recovered: draft.recovered,
  };
}
