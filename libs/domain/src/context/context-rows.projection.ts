import type { MessageRow } from '../messages/message-row.js';
import { hasToolCalls } from '../messages/message-row.js';
import { hasVisibleContent, isReasoningOnlyContent, rowText } from '../messages/message-text.js';
import { ws } from '../text/whitespace.js';
import { isSameCheckpoint } from '../messages/user-checkpoint.js';

/** How many same-role context rows an appended assistant row is compared with (§1.2, #2353). */
export const CONTEXT_DEDUPE_LOOKBACK = 8;

/**
 * §1.2: the model-facing copy of a display row, or null when the row is display-only.
 * Reasoning never reaches the model; error rows and markers are dropped; a reasoning-only
 * structured content survives as "" only to carry its tool calls.
 */
export function projectRowForContext(row: MessageRow): MessageRow | null {
  if (row.error) return null;
  const projected: { -readonly [K in keyof MessageRow]: MessageRow[K] } = { ...row };
  delete projected.reasoning;
  if (isReasoningOnlyContent(row.content)) {
    if (!hasToolCalls(row)) return null;
    projected.content = '';
  }
  const keeps = hasVisibleContent(projected.content) || Boolean(row.toolCallId) || hasToolCalls(row);
  return keeps ? projected : null;
}

/** The context derived from display rows: every row projected, duplicates preserved. */
export function seedContext(rows: readonly MessageRow[]): MessageRow[] {
  return rows.map(projectRowForContext).filter((row): row is MessageRow => row !== null);
}

function isRecentAssistantEcho(context: readonly MessageRow[], row: MessageRow): boolean {
  const text = ws(rowText(row));
  if (text === '') return false;
  return context
    .filter((candidate) => candidate.role === row.role)
    .slice(-CONTEXT_DEDUPE_LOOKBACK)
    .some((candidate) => ws(rowText(candidate)) === text);
}

/**
 * Appends the context projection of a row unless the model already has it: a user row is skipped
 * only when the last context row is the same checkpoint; an assistant row is skipped when one of
 * the last 8 assistant context rows has the same text.
 */
export function appendToContext(context: readonly MessageRow[], row: MessageRow): MessageRow[] {
  const projected = projectRowForContext(row);
  if (projected === null) return [...context];
  const last = context.at(-1);
  if (projected.role === 'user' && last !== undefined && isSameCheckpoint(last, projected)) return [...context];
  if (projected.role === 'assistant' && isRecentAssistantEcho(context, projected)) return [...context];
  return [...context, projected];
}

/**
 * Recovery's write to the context: an empty context is first seeded from the display rows, then
 * the row is appended with the dedupe rules (so a row already among the display rows is not doubled).
 */
export function mirrorToContext(
  context: readonly MessageRow[],
  displayRows: readonly MessageRow[],
  row: MessageRow,
): MessageRow[] {
  if (projectRowForContext(row) === null) return [...context];
  const base = context.length === 0 ? seedContext(displayRows) : context;
  return appendToContext(base, row);
}
