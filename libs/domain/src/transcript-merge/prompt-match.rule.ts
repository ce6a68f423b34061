import type { MessageRow } from '../messages/message-row.js';
import { rowText } from '../messages/message-text.js';
import { ws } from '../text/whitespace.js';
import { stripWorkspacePrefix } from './workspace-prefix.rule.js';

/**
 * Prompt matching: does a row of the agent store hold a prompt the UI submitted? The one rule, asked by the
 * recovery supervisor (does the agent store hold the dead turn?), by the prompt mirror (which agent row stands for
 * a prompt row, session-state/prompt-mirror.ts) and so by every merge of S with T.
 *
 * The agent store keeps the model-facing form of a prompt: its text is compared with ONE leading workspace tag
 * stripped and whitespace collapsed (R2, workspace-prefix.rule.ts), the prompt as typed with whitespace collapsed
 * only (a user who typed a tag keeps it). A user row holds the prompt by
 * - `visible_text`: its text (the string content, or the text parts of a multipart row joined by "\n"; images
 *   carry none) compares equal; or
 * - `first_text_part`: it is multipart, stamped in the turn (`isStampedInTurn`), and its FIRST text part compares
 *   equal. The agent stores a native-image turn as one multipart row (the inverse of R15) and may append text
 *   parts of its own after the user's (a recall note); the time keeps an earlier turn with the same opening out.
 */
export type PromptMatch = 'visible_text' | 'first_text_part';

/** The prompt as the UI holds it: the text as typed, and when it was submitted. */
export interface SubmittedPrompt {
  readonly text: string;
  readonly submittedAt: number;
}

const EVERY_RULE: readonly PromptMatch[] = ['visible_text', 'first_text_part'];

/** The row is stamped from the whole second the prompt was submitted in on: a row of that turn, not an earlier one. */
export function isStampedInTurn(row: MessageRow, submittedAt: number): boolean {
  const ts = row.timestamp;
  return typeof ts === 'number' && Number.isFinite(ts) && Number.isFinite(submittedAt) && ts >= Math.trunc(submittedAt);
}

function firstTextPart(row: MessageRow): string | null {
  if (!Array.isArray(row.content)) return null;
  for (const part of row.content) {
    if (part.type === 'text' && typeof part['text'] === 'string') return part['text'];
  }
  return null;
}

/**
 * The rule (of `rules`, tried in the order above) by which `row` holds `prompt`, or null. The prompt mirror asks
 * `first_text_part` alone: an agent row whose plain text is the prompt is left to the merge, whose comparison keys
 * read it the same way (comparison-keys.builder.ts `visibleTextOf`) and drop it as the prompt's duplicate.
 */
export function promptMatchOf(row: MessageRow, prompt: SubmittedPrompt, rules: readonly PromptMatch[] = EVERY_RULE): PromptMatch | null {
  if (row.role !== 'user') return null;
  const typed = ws(prompt.text);
  if (rules.includes('visible_text') && stripWorkspacePrefix(rowText(row)) === typed) return 'visible_text';
  if (!rules.includes('first_text_part') || !isStampedInTurn(row, prompt.submittedAt)) return null;
  const first = firstTextPart(row);
  return first !== null && stripWorkspacePrefix(first) === typed ? 'first_text_part' : null;
}
