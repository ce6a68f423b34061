import type { Marker, MessageContent, MessageRow, ToolCard } from '#domain';

/** The object `GET /v1/sessions/{id}/transcript` answers (and `replay --json` prints). */
export interface TranscriptResponse {
  readonly sessionId: string;
  readonly version: number;
  readonly view: 'display' | 'context';
  readonly messages: readonly MessageRow[];
  readonly toolCards: readonly ToolCard[];
  readonly hash: string;
}

const INDENT = '    ';

/** Epoch seconds (the domain's time unit) as `YYYY-MM-DD HH:MM:SSZ`; absent → `-`. */
export function formatTime(seconds: number | null | undefined): string {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return '-';
  const date = new Date(Math.trunc(seconds * 1000));
  return Number.isNaN(date.getTime()) ? String(seconds) : `${date.toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

export function contentText(content: MessageContent | null | undefined): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part) => {
      if (part.type === 'text' && typeof part.text === 'string') return part.text;
      if (part.type === 'image_url') {
        const url = String((part as { imageUrl?: { url?: unknown } }).imageUrl?.url ?? '');
        return `[image ${url.length > 60 ? `${url.slice(0, 57)}...` : url}]`;
      }
      return `[${part.type}]`;
    })
    .join('\n');
}

function toolCallLine(call: unknown): string {
  const c = (call ?? {}) as { name?: unknown; function?: { name?: unknown; arguments?: unknown } };
  const name = String(c.function?.name ?? c.name ?? 'tool');
  const args = c.function?.arguments;
  const shown = typeof args === 'string' ? args : args === undefined ? '' : JSON.stringify(args);
  return `-> ${name}(${shown.length > 100 ? `${shown.slice(0, 97)}...` : shown})`;
}

function tags(row: MessageRow): string[] {
  const out: string[] = [];
  if (row.partial) out.push('partial');
  if (row.error) out.push('error');
  if (row.recovered) out.push('recovered prompt');
  if (row.recoveredFromRunJournal) out.push(`recovered from run journal${row.recoveredRunId ? ` ${row.recoveredRunId}` : ''}`);
  if (row.source) out.push(`source ${row.source}`);
  return out;
}

function indent(text: string): string[] {
  return text.split('\n').map((line) => (line ? `${INDENT}${line}` : ''));
}

export function renderMessage(row: MessageRow, index: number): string[] {
  const marker = row.type === 'interrupted';
  const who = marker ? `-- marker: response interrupted (${row.interruptionCause ?? 'unknown'}) --` : row.role;
  const tool = row.role === 'tool' && row.toolName ? ` ${row.toolName}` : '';
  const extra = tags(row);
  const lines = [`#${index + 1}  ${who}${tool} · ${formatTime(row.timestamp)}${extra.length ? `  [${extra.join(', ')}]` : ''}`];
  if (row.reasoning) lines.push(...indent(`(reasoning) ${row.reasoning}`));
  const text = contentText(row.content);
  if (text) lines.push(...indent(text));
  for (const call of row.toolCalls ?? []) lines.push(...indent(toolCallLine(call)));
  if (!text && !row.reasoning && !(row.toolCalls?.length ?? 0)) lines.push(`${INDENT}(no content)`);
  return lines;
}

export function renderToolCard(card: ToolCard): string {
  const state = !card.done ? 'running' : card.isError ? 'error' : 'ok';
  const took = card.duration === null ? '' : ` ${card.duration.toFixed(1)}s`;
  const at = card.assistantMessageIndex === null ? '' : ` after #${card.assistantMessageIndex + 1}`;
  const args = Object.entries(card.args).map(([k, v]) => `${k}=${v}`).join(' ');
  const from = card.recoveredFromRunJournal ? ` [recovered from ${card.recoveredRunId ?? 'run journal'}]` : '';
  return `  [${state}] ${card.name}${took}${at}${card.preview ? ` - ${card.preview}` : ''}${args ? `  (${args})` : ''}${from}`;
}

export function renderMarker(marker: Marker): string {
  const at = marker.messageIndex === null ? 'not shown' : `#${marker.messageIndex + 1}`;
  return `  ${marker.runId} · ${marker.cause} · ${marker.status} · ${at} · ${formatTime(marker.timestamp)}`;
}

/** The readable transcript of `chronicle replay` (no `--json`): header, messages, tool cards, markers. */
export function renderReadable(transcript: TranscriptResponse, markers: readonly Marker[]): string {
  const t = transcript;
  const lines = [
    `Session ${t.sessionId} · version ${t.version} · ${t.view} view · ${t.messages.length} messages · ${t.toolCards.length} tool cards`,
    `hash ${t.hash}`,
    '',
  ];
  t.messages.forEach((row, index) => lines.push(...renderMessage(row, index), ''));
  if (t.messages.length === 0) lines.push('(no messages)', '');
  if (t.toolCards.length > 0) lines.push('Tool cards', ...t.toolCards.map(renderToolCard), '');
  if (markers.length > 0) lines.push('Markers', ...markers.map(renderMarker), '');
  return `${lines.join('\n').trimEnd()}\n`;
}
