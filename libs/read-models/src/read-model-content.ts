import { openText, sealText } from '#event-store/seal';
import type { StoredIndexRow } from './session-index/index-row.builder.js';

/**
 * What a read model row holds of a session's content: its title and its pending turn's prompt (text and
 * attachments). The inline summary (`session_summaries.data`) and the `session_index` row both carry them; with
 * the session's data key they are stored sealed like the events (AES-256-GCM, the stream id and the row's purpose
 * as additional data), so a copy of the event database — a backup taken before an erasure — holds no title or
 * prompt in the clear. The rest of the row (status, times, counts, the pending turn's run id and submission
 * time, which the recovery supervisor and the list's filters read in SQL) stays plain.
 */
export type ContentPurpose = 'summary' | 'index';

interface PendingContent {
  readonly text: string;
  readonly attachments: readonly unknown[];
}

/** A row with content: a title, and a pending turn whose prompt is content. */
export interface RowWithContent {
  readonly title: string | null;
  readonly pendingTurn: (PendingContent & object) | null;
}

/** A row as stored: `sealed` holds its content when it has any and a key sealed it (absent: the row is plain). */
export type SealedRow<Row> = Row & { readonly sealed?: string };

interface Content {
  readonly title: string | null;
  readonly text?: string;
  readonly attachments?: readonly unknown[];
}

/**
 * The row as stored: with a key and any content, the title and the prompt move into `sealed` (the title null,
 * the pending turn without text and attachments); without a key (content stored plain, erased content) as it is.
 */
export function sealRowContent<Row extends RowWithContent>(key: Buffer | null, streamId: string, purpose: ContentPurpose, row: Row): SealedRow<Row> {
  if (key === null || (row.title === null && row.pendingTurn === null)) return row;
  return { ...stripped(row), sealed: sealText(key, streamId, purpose, JSON.stringify(contentOf(row))) };
}

/**
 * The row as a reader sees it: sealed content opened with the key and put back in place. With the key gone (an
 * erased session, a row restored from a backup older than its erasure) or a ciphertext that does not open, the
 * content reads empty: no title, an empty prompt.
 */
export function openRowContent<Row extends RowWithContent>(key: Buffer | null, streamId: string, purpose: ContentPurpose, stored: SealedRow<Row>): Row {
  const { sealed, ...plain } = stored as SealedRow<Row> & { sealed?: string | null };
  if (typeof sealed !== 'string') return plain as unknown as Row;
  let content: Content = { title: null, text: '', attachments: [] };
  if (key !== null) {
    try {
      content = JSON.parse(openText(key, streamId, purpose, sealed)) as Content;
    } catch {
      // An edited ciphertext fails its tag: read as erased, and the audit reports the row against the replay.
    }
  }
  // What the row holds in the clear wins: a sealed row keeps no title or prompt there, so one edited in shows
  // (and differs from the replay in an audit) rather than hiding behind the sealed content.
  const row = plain as unknown as Row;
  return {
    ...row,
    title: row.title ?? content.title,
    pendingTurn: row.pendingTurn === null ? null : { text: content.text ?? '', attachments: content.attachments ?? [], ...(row.pendingTurn as object) },
  };
}

/** A stored summary's data as its builder made it: a sealed title and pending prompt opened. */
export function openSummaryData(key: Buffer | null, streamId: string, data: unknown): unknown {
  if (typeof data !== 'object' || data === null || typeof (data as { sealed?: unknown }).sealed !== 'string') return data;
  return openRowContent(key, streamId, 'summary', data as SealedRow<RowWithContent>);
}

/** A stored `session_index` row as its builder made it: a sealed title and pending prompt opened. */
export const openIndexRow = (key: Buffer | null, streamId: string, row: SealedRow<StoredIndexRow>): StoredIndexRow =>
  openRowContent(key, streamId, 'index', row);

function contentOf(row: RowWithContent): Content {
  const p = row.pendingTurn;
  return p === null ? { title: row.title } : { title: row.title, text: p.text, attachments: p.attachments };
}

function stripped<Row extends RowWithContent>(row: Row): Row {
  if (row.pendingTurn === null) return { ...row, title: null };
  const { text: _text, attachments: _attachments, ...pending } = row.pendingTurn;
  return { ...row, title: null, pendingTurn: pending as Row['pendingTurn'] };
}

/**
 * The stored summary's seal, made once per title and pending turn: the writer's fold keeps the same pending turn
 * object while a turn streams its tokens, so an append seals its row's content only when the title or the pending
 * turn changed. Held per data key (the keyring keeps one Buffer per session), dropped with it.
 */
const sealedSummaries = new WeakMap<Buffer, { title: string | null; pending: object | null; sealed: string }>();

export function sealSummaryContent<Row extends RowWithContent>(key: Buffer | null, streamId: string, row: Row): SealedRow<Row> {
  if (key === null || (row.title === null && row.pendingTurn === null)) return row;
  const known = sealedSummaries.get(key);
  if (known !== undefined && known.title === row.title && known.pending === row.pendingTurn) {
    // `stripped` made a new row: the seal goes onto it, not onto a second copy.
    const out = stripped(row) as SealedRow<Row> & { sealed?: string };
    out.sealed = known.sealed;
    return out;
  }
  const sealed = sealRowContent(key, streamId, 'summary', row);
  sealedSummaries.set(key, { title: row.title, pending: row.pendingTurn, sealed: sealed.sealed as string });
  return sealed;
}
