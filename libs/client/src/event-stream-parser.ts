/** One Server-Sent Event (HTML "Server-sent events", the event stream interpretation). */
export interface ServerSentEvent {
  /** `event:`; `message` when the block named none. */
  readonly event: string;
  /** The `data:` lines, joined by `\n`. */
  readonly data: string;
  /** The last event ID when it was dispatched: this block's `id:`, else the last one before it (the spec keeps it). */
  readonly id?: string;
}

/**
 * An incremental event-stream parser: feed it text as it arrives, in chunks cut anywhere (mid-line, between
 * `\r` and `\n`), and it answers the events each chunk completed. CRLF, CR and LF end lines; comment lines
 * (`: heartbeat`) and `retry:` are no events; a block without `data:` dispatches nothing. The one parser of
 * the client library's `TranscriptWatcher` and the admin dashboard's live view (which reads the stream over
 * fetch: EventSource cannot send an Authorization header).
 */
export class EventStreamParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  /** The last `id:` read, kept across events as the spec says; it becomes `lastEventId` when its block ends. */
  private idBuffer: string | undefined;
  /** The last event id of a block that ended (what `Last-Event-ID` resumes from); a block cut off does not count. */
  lastEventId: string | undefined;
  /** The reconnection delay the server last asked for (`retry:`), in ms. */
  retryMs: number | null = null;

  /** `lastEventId`: the id a reconnecting stream resumes from, kept until the stream sends another. */
  constructor(lastEventId?: string) {
    this.idBuffer = this.lastEventId = lastEventId;
  }

  push(chunk: string): ServerSentEvent[] {
    this.buffer += chunk;
    const events: ServerSentEvent[] = [];
    for (;;) {
      const end = this.buffer.search(/\r\n|\r|\n/);
      // A lone `\r` at the end may be the first half of `\r\n`: wait for the next chunk.
      if (end < 0 || (this.buffer[end] === '\r' && end === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + (this.buffer.startsWith('\r\n', end) ? 2 : 1));
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  private line(line: string): ServerSentEvent | null {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.idBuffer = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
    return null;
  }

  private dispatch(): ServerSentEvent | null {
    const { event, data, idBuffer } = this;
    this.lastEventId = idBuffer;
    this.event = '';
    this.data = [];
    if (data.length === 0) return null;
    return { event: event || 'message', data: data.join('\n'), ...(idBuffer === undefined ? {} : { id: idBuffer }) };
  }
}
