import type { JournalEvent, ToolCard } from '../messages/message-row.js';
import { comparisonJson } from '../canonical/comparison-json.js';
import { cutText, payloadText } from './journal-text.helpers.js';
import { ws } from '../text/whitespace.js';

type Payload = JournalEvent['payload'];

/** §3.7: a recovered card keeps the first 4 argument keys, each value cut to 120 characters. */
export const TOOL_ARG_KEY_LIMIT = 4;
export const TOOL_ARG_VALUE_LIMIT = 120;
const DEFAULT_TOOL_NAME = 'tool';

/** Strings as-is, anything else as canonical JSON; first 4 keys, values cut to 120 chars + "...". */
export function summariseToolArgs(args: unknown): Record<string, string> {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return {};
  const entries = Object.entries(args as Record<string, unknown>).slice(0, TOOL_ARG_KEY_LIMIT);
  return Object.fromEntries(
    entries.map(([key, value]) => {
      const text = typeof value === 'string' ? value : comparisonJson(value);
      return [key, cutText(text, TOOL_ARG_VALUE_LIMIT)];
    }),
  );
}

/** The tool name an event names, or '' when it names none. */
export function toolEventName(payload: Payload | undefined): string {
  const name = payload?.['name'];
  return typeof name === 'string' ? name : '';
}

/** The card of a journal `tool` event, hanging under the row at `assistantMessageIndex`. */
export function buildRecoveredToolCard(
  payload: Payload | undefined,
  runId: string,
  assistantMessageIndex: number,
): ToolCard {
  return {
    name: toolEventName(payload) || DEFAULT_TOOL_NAME,
    preview: payloadText(payload, 'preview'),
    args: summariseToolArgs(payload?.['args']),
    done: false,
    isError: false,
    duration: null,
    assistantMessageIndex,
    recoveredFromRunJournal: true,
    recoveredRunId: runId,
  };
}

/** A journal `tool_complete` applied to its card: done, error flag, duration and preview when given. */
export function completeToolCard(card: ToolCard, payload: Payload | undefined): ToolCard {
  const duration = payload?.['duration'];
  const preview = payloadText(payload, 'preview');
  return {
    ...card,
    done: true,
    isError: Boolean(payload?.['is_error']),
    ...(typeof duration === 'number' && Number.isFinite(duration) ? { duration } : {}),
    ...(preview !== '' ? { preview } : {}),
  };
}

/**
 * Re-run dedupe: a card with the same name and ws-equal preview already exists. A card recovered
 * from another run's journal does not count; untagged cards (committed by the UI) do.
 */
export function hasEquivalentToolCard(cards: readonly ToolCard[], card: ToolCard, runId: string): boolean {
  const preview = ws(card.preview);
  return cards.some(
    (existing) =>
      (!existing.recoveredRunId || existing.recoveredRunId === runId) &&
      existing.name === card.name &&
      ws(existing.preview) === preview,
  );
}
