import type { MessageRow, StateRow } from '../messages/message-row.js';
import { promptMatchOf, type SubmittedPrompt } from '../transcript-merge/prompt-match.rule.js';

/**
 * The agent-store mirror of a turn's prompt: the inverse of reference §2.5 R15 (seeds "pending image prompt
 * ... proven" and "pending image row alone"). The agent stores a native-image turn as ONE multipart user row
 * R ([prompt text, image, maybe agent-only notes]); the UI shows the submitted (or recovered) prompt row P
 * (the text as typed, its attachments). R MIRRORS P when
 * - R holds P's prompt by its first text part (transcript-merge/prompt-match.rule.ts `first_text_part`: R is a
 *   multipart user row stamped in P's turn, later text parts are agent-only), and
 * - R is older than the next user row shown after P (a later turn with the same opening text has its own row).
 * P is one of: the pending prompt row, the prompt row of an interrupted run (the recovered pending row, or the
 * row the run found already showing its prompt), the pending turn a commit lands (not a row yet), or a
 * committed user row that carries R's rowId (an agent-store recovery commits the prompt so: exact pairing).
 * R must not be shown by another row (its rowId carried elsewhere). Each P takes the first unclaimed R in rowId
 * order. A mirrored R is never merged into the display (P stands for it, keeping its attachments and time);
 * in the context, P's content is R's (the provider-facing enriched row, with R's provider bytes if any).
 * Pure and deterministic: a function of the rows alone.
 */
export interface TurnPrompt extends SubmittedPrompt {
  /** Index of the prompt row in the rows paired; null: the pending turn a commit lands. */
  readonly index: number | null;
}

export interface MirrorPair {
  /** The prompt row's index (null: the turn a commit lands). */
  readonly prompt: number | null;
  readonly agentRow: StateRow;
}

export interface Unmirrored {
  /** The state rows without the mirrored ones: what the merges see. */
  readonly stateRows: readonly StateRow[];
  readonly pairs: readonly MirrorPair[];
}

/** A user row with multipart content: the only kind of row that can mirror a prompt. */
export const isMultipartUser = (row: MessageRow): boolean => row.role === 'user' && Array.isArray(row.content);

const finiteTime = (row: MessageRow): number | null =>
  typeof row.timestamp === 'number' && Number.isFinite(row.timestamp) ? row.timestamp : null;

const MIRROR_RULE = ['first_text_part'] as const;

/** The rule above, for one agent row and one prompt (without the pairing constraints). */
export function mirrorsPrompt(agentRow: MessageRow, prompt: SubmittedPrompt): boolean {
  return promptMatchOf(agentRow, prompt, MIRROR_RULE) !== null;
}

/** The time of the first user row after `index`, the bound of that prompt's turn (Infinity: none). */
function nextUserTime(rows: readonly MessageRow[], index: number | null): number {
  if (index === null) return Infinity;
  for (let at = index + 1; at < rows.length; at += 1) {
    const ts = rows[at].role === 'user' ? finiteTime(rows[at]) : null;
    if (ts !== null) return ts;
  }
  return Infinity;
}

/** The prompt a committed row stands for when it carries the rowId of the agent row mirroring it. */
function carriedPrompt(row: MessageRow, agentRow: StateRow | undefined): boolean {
  if (agentRow === undefined || row.role !== 'user' || typeof row.content !== 'string') return false;
  const ts = finiteTime(row);
  return ts !== null && mirrorsPrompt(agentRow, { text: row.content, submittedAt: ts });
}

/**
 * Pairs the prompts of `rows` (an expansion of S) with their agent mirrors among `stateRows` and returns the
 * state rows without them. Costs one pass over the state rows when none is multipart (the usual case).
 */
export function unmirror(rows: readonly MessageRow[], prompts: readonly TurnPrompt[], stateRows: readonly StateRow[]): Unmirrored {
  const candidates = stateRows.filter(isMultipartUser);
  if (candidates.length === 0) return { stateRows, pairs: [] };
  const byRowId = new Map(candidates.map((row) => [row.rowId, row]));
  const carried = new Set<number>();
  const pairs: MirrorPair[] = [];
  const claimed = new Set<StateRow>();
  rows.forEach((row, index) => {
    if (typeof row.rowId !== 'number') return;
    carried.add(row.rowId);
    const agentRow = byRowId.get(row.rowId);
    if (agentRow !== undefined && !claimed.has(agentRow) && carriedPrompt(row, agentRow)) {
      claimed.add(agentRow);
      pairs.push({ prompt: index, agentRow });
    }
  });
  for (const prompt of prompts) {
    const bound = nextUserTime(rows, prompt.index);
    const agentRow = candidates.find(
      (row) => !claimed.has(row) && !carried.has(row.rowId) && (finiteTime(row) ?? Infinity) < bound && mirrorsPrompt(row, prompt),
    );
    if (agentRow === undefined) continue;
    claimed.add(agentRow);
    pairs.push({ prompt: prompt.index, agentRow });
  }
  if (pairs.length === 0) return { stateRows, pairs };
  return { stateRows: stateRows.filter((row) => !claimed.has(row as StateRow)), pairs };
}

/**
 * The context with each paired prompt's copy holding its mirror's content: a context row is the prompt's copy
 * when it is a user row with the prompt row's text and exact timestamp.
 */
export function withMirroredContent(context: readonly MessageRow[], rows: readonly MessageRow[], pairs: readonly MirrorPair[]): readonly MessageRow[] {
  let out: MessageRow[] | null = null;
  for (const { prompt, agentRow } of pairs) {
    if (prompt === null) continue;
    const shown = rows[prompt];
    context.forEach((row, index) => {
      if (row.role !== 'user' || row.content !== shown.content || row.timestamp !== shown.timestamp) return;
      out ??= context.slice();
      out[index] = {
        ...row,
        content: agentRow.content,
        ...(typeof agentRow.apiContent === 'string' ? { apiContent: agentRow.apiContent } : {}),
      };
    });
  }
  return out ?? context;
}
