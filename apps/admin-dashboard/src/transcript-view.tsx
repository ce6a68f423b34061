import { memo, useMemo } from 'react';
import { contentParts, type Marker, type MessageRow, type PendingTurn, type Streaming, type ToolCard } from './api';
import { formatDuration, formatTime, preview, words } from './format';
import { Markdown } from './markdown-view';
import { Empty } from './problem-view';
import { textOf } from './transcript-patch';
import { VirtualList } from './virtual-list';

export function ToolCardView({ card }: { card: ToolCard }) {
  const state = card.isError ? 'error' : card.done ? 'done' : 'running';
  return (
    <details className={`tool-card tool-${state}`}>
      <summary>
        <span className="tool-name">{card.name}</span>
        <span className={`badge tool-state-${state}`}>{state}</span>
        {card.duration !== null && card.duration !== undefined && <span className="muted small">{formatDuration(card.duration)}</span>}
        {card.recoveredFromRunJournal && <span className="badge subtle">from journal</span>}
        {card.preview && <span className="tool-preview">{preview(card.preview, 120)}</span>}
      </summary>
      {card.args !== undefined && card.args !== null && <pre className="tool-args">{typeof card.args === 'string' ? card.args : JSON.stringify(card.args, null, 2)}</pre>}
    </details>
  );
}

function attachmentLabel(attachment: unknown): string {
  if (typeof attachment === 'string') return attachment;
  if (attachment && typeof attachment === 'object') {
    const a = attachment as Record<string, unknown>;
    for (const key of ['name', 'filename', 'path', 'url', 'id']) if (typeof a[key] === 'string') return a[key] as string;
  }
  return preview(attachment, 60);
}

function Attachments({ value }: { value: unknown }) {
  const list = Array.isArray(value) ? value : value ? [value] : [];
  if (list.length === 0) return null;
  return (
    <ul className="attachments" aria-label="Attachments">
      {list.map((attachment, i) => (
        <li key={i} className="chip" title={preview(attachment, 400)}>
          📎 {attachmentLabel(attachment)}
        </li>
      ))}
    </ul>
  );
}

/** Images in content parts: inline only when the bytes are in the row (a data: image); otherwise the address as text. */
function ImageParts({ content }: { content: MessageRow['content'] }) {
  const urls = contentParts(content).flatMap((part) => (part.type === 'image_url' ? [String((part as { imageUrl?: { url?: string } }).imageUrl?.url ?? '')] : []));
  return (
    <>
      {urls.map((url, i) =>
        /^data:image\/(png|jpeg|gif|webp);base64,/.test(url) ? <img key={i} className="part-image" src={url} alt="attached image" /> : <span key={i} className="chip">🖼 {preview(url, 80)}</span>,
      )}
    </>
  );
}

interface MessageProps {
  readonly row: MessageRow;
  readonly index: number;
  readonly cards: readonly ToolCard[];
  readonly marker: Marker | undefined;
}

export const Message = memo(function Message({ row, index, cards, marker }: MessageProps) {
  const isMarker = row.type === 'interrupted';
  const text = textOf(row.content);
  const cause = marker?.cause ?? row.interruptionCause;
  return (
    <article className={`msg role-${row.role}${isMarker ? ' msg-marker' : ''}`} aria-label={`${row.role} message ${index + 1}`}>
      <header className="msg-head">
        <span className="role">{isMarker ? 'recovery marker' : row.role}</span>
        {row.partial && <span className="badge subtle">partial</span>}
        {row.recovered && <span className="badge subtle">recovered prompt</span>}
        {row.recoveredFromRunJournal && !isMarker && <span className="badge subtle">from run journal</span>}
        {row.toolName && <span className="badge subtle">{row.toolName}</span>}
        <span className="spacer" />
        <time className="muted small">{formatTime(row.timestamp)}</time>
        <span className="muted small idx">#{index}</span>
      </header>
      {isMarker && (
        <div className="marker-meta">
          {cause && (
            <span>
              cause <strong className="marker-cause">{words(cause)}</strong>
            </span>
          )}
          {marker && (
            <span>
              status <span className={`badge marker-${marker.status}`}>{words(marker.status)}</span>
            </span>
          )}
          {marker && <span className="muted">run {marker.runId}</span>}
        </div>
      )}
      {row.reasoning && (
        <details className="reasoning">
          <summary>Reasoning</summary>
          <Markdown text={row.reasoning} />
        </details>
      )}
      {row.role === 'tool' ? (
        <details className="tool-result">
          <summary>Tool result {row.toolCallId && <code className="muted">{row.toolCallId}</code>}</summary>
          <pre>{text}</pre>
        </details>
      ) : (
        text && <Markdown text={text} />
      )}
      <ImageParts content={row.content} />
      <Attachments value={row.attachments} />
      {cards.map((card, i) => (
        <ToolCardView key={i} card={card} />
      ))}
      {/* A marker row carries `error: true`; only a stated error is shown. */}
      {(typeof row.error === 'string' || (typeof row.error === 'object' && row.error !== null)) && <div className="row-error">{preview(row.error, 300)}</div>}
    </article>
  );
});

export function PendingTurnView({ pending, streaming }: { pending: PendingTurn | null; streaming: Streaming | null }) {
  const runId = streaming?.runId ?? pending?.runId;
  return (
    <article className="msg role-assistant msg-pending" aria-live="polite" aria-label="Pending turn">
      <header className="msg-head">
        <span className="role">assistant</span>
        <span className="badge status-pending">pending turn</span>
        {runId && <span className="muted small">run {runId}</span>}
        <span className="spacer" />
        {pending && <time className="muted small">submitted {formatTime(pending.submittedAt)}</time>}
      </header>
      {streaming?.reasoning && (
        <details className="reasoning">
          <summary>Reasoning</summary>
          <Markdown text={streaming.reasoning} />
        </details>
      )}
      <div className="streaming-output" data-testid="streaming-output">
        {streaming?.text ? <Markdown text={streaming.text} /> : <p className="muted">Waiting for the worker’s output…</p>}
        <span className="caret" aria-hidden="true" />
      </div>
      {streaming?.toolCards.map((card, i) => (
        <ToolCardView key={i} card={card} />
      ))}
    </article>
  );
}

interface TranscriptProps {
  readonly messages: readonly MessageRow[];
  readonly toolCards: readonly ToolCard[];
  readonly markers: readonly Marker[] | null;
  readonly streaming: Streaming | null;
  readonly pending: PendingTurn | null;
  readonly label: string;
}

/** The transcript as a user reads it, virtualised; the pending turn (and what it streamed) is its last row. */
export function TranscriptList({ messages, toolCards, markers, streaming, pending, label }: TranscriptProps) {
  const cardsByMessage = useMemo(() => {
    const map = new Map<number, ToolCard[]>();
    for (const card of toolCards) {
      if (card.assistantMessageIndex === null) continue;
      map.set(card.assistantMessageIndex, [...(map.get(card.assistantMessageIndex) ?? []), card]);
    }
    return map;
  }, [toolCards]);
  const markerAt = useMemo(() => new Map((markers ?? []).filter((m) => m.messageIndex !== null).map((m) => [m.messageIndex!, m])), [markers]);
  const showPending = streaming !== null || pending !== null;
  const count = messages.length + (showPending ? 1 : 0);
  if (count === 0) return <Empty title="No messages at this version">The transcript fills as turns are submitted and settled.</Empty>;
  return (
    <VirtualList
      label={label}
      count={count}
      tailKey={streaming?.text}
      renderItem={(i) =>
        i < messages.length ? <Message row={messages[i]} index={i} cards={cardsByMessage.get(i) ?? NO_CARDS} marker={markerAt.get(i)} /> : <PendingTurnView pending={pending} streaming={streaming} />
      }
    />
  );
}
const NO_CARDS: readonly ToolCard[] = [];
