import { createDraft, type Draft } from '../journal/journal-flush.materialiser.js';
import { materialiseEvent } from '../journal/journal-output.materialiser.js';
import { isValidSeq } from '../journal/journal-summary.projection.js';
import type { JournalChunks } from '../journal/journal-chunks.js';
import type { JournalEvent, ToolCard } from '../messages/message-row.js';
import { type PendingTurnView, type SessionState, storedRunOf } from '../session-state/session.state.js';

/** What the pending turn's journal has produced so far (the contract's `streaming`): display-only, never hashed. */
export interface StreamingOutput {
  readonly runId: string;
  readonly text: string;
  readonly reasoning: string;
  readonly toolCards: readonly ToolCard[];
}

/**
 * The pending turn's output as its journal stands, read by the same materialisation a recovery uses (§3.7),
 * so what a watcher sees while the turn streams is what a recovery would keep of it. The text of successive
 * assistant rows is joined by a blank line; tool cards point at no row (the rows do not exist yet). Null when
 * no turn is pending. It reads the whole journal of the turn: a reader that follows a turn version by version
 * keeps a `StreamingFold` instead (`followStreaming`), which reads only what each version added.
 */
export function streamingOutputOf(state: SessionState): StreamingOutput | null {
  return followStreaming(null, state).output;
}

/**
 * §3.7's pass over a pending turn's journal, kept open after the events it has read (no final flush), so the next
 * version of the turn continues it with the events it added instead of reading the turn again. It is the
 * caller's and mutable: `followStreaming` advances it in place when it can, so a fold handed in is not to be used
 * again but through what `followStreaming` answers.
 */
export interface StreamingFold {
  readonly turn: PendingTurnView;
  /** Journal events read, in the journal's (seq) order, events without a valid seq included; and the last of them. */
  read: number;
  last: JournalEvent | null;
  readonly draft: Draft;
  readonly added: ToolCard[];
  /** How many of the draft's rows `text` and `reasoning` join (rows are only appended in a pass without dedupe). */
  joined: number;
  text: string;
  reasoning: string;
  cards: { readonly from: readonly ToolCard[]; readonly shown: readonly ToolCard[] } | null;
}

export interface FollowedStreaming {
  /** The fold at this state (null when no turn is pending): hand it to the next `followStreaming` of the session. */
  readonly fold: StreamingFold | null;
  readonly output: StreamingOutput | null;
}

/**
 * The pending turn's streaming output (`streamingOutputOf`) of `state`, continuing `fold` when `state`'s journal of
 * the turn extends what the fold read — the same turn, the same events (the very objects: a fold state's journal
 * is copy-on-write) with more after them —, else from the turn's start. Following a turn token by token then costs
 * what the token adds, not what the turn holds. The answer is the same either way (a property test holds it to
 * `materialiseJournal` over the whole journal).
 */
export function followStreaming(fold: StreamingFold | null, state: SessionState): FollowedStreaming {
  const pending = state.pending;
  if (pending === null) return { fold: null, output: null };
  const journal = storedRunOf(state, pending.runId)?.journal ?? [];
  const current = fold !== null && sameTurn(fold.turn, pending) && extendsRead(fold, journal) ? fold : startFold(pending);
  readFrom(current, journal);
  return { fold: current, output: outputOf(current) };
}

const sameTurn = (a: PendingTurnView, b: PendingTurnView): boolean => a === b || (a.runId === b.runId && a.submittedAt === b.submittedAt);

function startFold(turn: PendingTurnView): StreamingFold {
  const draft = createDraft({
    runId: turn.runId,
    events: [],
    rows: [],
    context: [],
    toolCards: [],
    dedupeExisting: false,
    pending: null,
    fallbackTimestamp: Math.trunc(turn.submittedAt),
  });
  return { turn, read: 0, last: null, draft, added: [], joined: 0, text: '', reasoning: '', cards: null };
}

/** The journal's event at `index` (in seq order, across its chunks), if any. */
function eventAt(journal: JournalChunks, index: number): JournalEvent | undefined {
  let at = index;
  for (const chunk of journal) {
    if (at < chunk.length) return chunk[at];
    at -= chunk.length;
  }
  return undefined;
}

/** The journal still begins with the events the fold read: its last is where the fold left it. */
function extendsRead(fold: StreamingFold, journal: JournalChunks): boolean {
  return fold.read === 0 || eventAt(journal, fold.read - 1) === fold.last;
}

/** Applies the journal's events after those the fold read, in order; an event without a valid seq is passed over, as `summarizeJournal` leaves it out. */
function readFrom(fold: StreamingFold, journal: JournalChunks): void {
  let skip = fold.read;
  for (const chunk of journal) {
    if (skip >= chunk.length) {
      skip -= chunk.length;
      continue;
    }
    for (let index = skip; index < chunk.length; index += 1) {
      const event = chunk[index];
      if (isValidSeq(event.seq)) materialiseEvent(fold.draft, event, [], fold.added);
      fold.read += 1;
      fold.last = event;
    }
    skip = 0;
  }
}

const joinTexts = (joined: string, next: string): string => (joined === '' ? next : next === '' ? joined : `${joined}\n\n${next}`);

/**
 * The output of the pass as a final flush would end it, without flushing: the rows flushed so far (joined once
 * each, as they come) and the draft's open buffers. Each row's content and reasoning join their texts when not
 * empty, as `materialiseJournal`'s rows would, a blank line apart.
 */
function outputOf(fold: StreamingFold): StreamingOutput {
  const rows = fold.draft.rows;
  for (; fold.joined < rows.length; fold.joined += 1) {
    const row = rows[fold.joined];
    if (typeof row.content === 'string') fold.text = joinTexts(fold.text, row.content);
    if (typeof row.reasoning === 'string') fold.reasoning = joinTexts(fold.reasoning, row.reasoning);
  }
  // What the final flush would make a row of: the draft's buffers, trimmed (journal-flush.materialiser.ts `flush`).
  const open = { text: fold.draft.text.trim(), reasoning: fold.draft.reasoning.trim() };
  // The cards as shown (no row yet to point at), made again only when a card was added or completed.
  const added = fold.added;
  if (fold.cards === null || fold.cards.from.length !== added.length || fold.cards.from.some((card, index) => card !== added[index])) {
    fold.cards = { from: added.slice(), shown: added.map((card) => ({ ...card, assistantMessageIndex: null })) };
  }
  return { runId: fold.turn.runId, text: joinTexts(fold.text, open.text), reasoning: joinTexts(fold.reasoning, open.reasoning), toolCards: fold.cards.shown };
}
