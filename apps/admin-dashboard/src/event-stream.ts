/**
 * Server-Sent Events over fetch: EventSource cannot send an Authorization header, so the dashboard reads the
 * stream itself. The parser follows the HTML event-stream rules (fields `event`, `data`, `id`, `retry`;
 * comments; CRLF, CR or LF line ends; a blank line dispatches).
 */
export interface StreamEvent {
  readonly event: string;
  readonly data: string;
  readonly id: string | null;
}

export class EventStreamParser {
  private buffer = '';
  private eventType = '';
  private data: string[] = [];
  private id: string | null = null;
  /** The last `id:` seen (what Last-Event-ID resumes from); kept across events as the spec says. */
  lastEventId: string | null = null;
  retryMs: number | null = null;

  push(chunk: string): StreamEvent[] {
    this.buffer += chunk;
    const out: StreamEvent[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      // A lone CR at the end may be the first half of a CRLF: wait for the next chunk.
      if (!match || (match[0] === '\r' && match.index === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const event = this.line(line);
      if (event) out.push(event);
    }
    return out;
  }

  private line(line: string): StreamEvent | null {
    if (line === '') {
      if (this.data.length === 0) {
        this.eventType = '';
        return null;
      }
      const event = { event: this.eventType || 'message', data: this.data.join('\n'), id: this.id };
      this.eventType = '';
      this.data = [];
      return event;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.eventType = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.id = this.lastEventId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
    return null;
  }
}

export interface OpenStreamOptions {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly lastEventId: string | null;
  readonly signal: AbortSignal;
  readonly onOpen: () => void;
  readonly onEvent: (event: StreamEvent) => void;
}

export interface StreamEnd {
  /** The id to resume from, and the reconnection delay the server asked for. */
  readonly lastEventId: string | null;
  readonly retryMs: number | null;
}

/**
 * Reads one connection until it ends or fails; resolves with what a reconnection needs (a failed or ended
 * connection look the same to the caller: the live feed stopped). Rejects only on a non-2xx answer.
 */
export async function readEventStream(options: OpenStreamOptions): Promise<StreamEnd> {
  const parser = new EventStreamParser();
  parser.lastEventId = options.lastEventId;
  const headers: Record<string, string> = { ...options.headers, Accept: 'text/event-stream' };
  if (options.lastEventId !== null) headers['Last-Event-ID'] = options.lastEventId;
  const response = await fetch(options.url, { headers, signal: options.signal, cache: 'no-store' });
  if (!response.ok || !response.body) throw response;
  options.onOpen();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const event of parser.push(value)) options.onEvent(event);
    }
  } catch {
    // The connection broke (network, proxy, server gone): the caller reconnects.
  } finally {
    reader.releaseLock();
  }
  return { lastEventId: parser.lastEventId, retryMs: parser.retryMs };
}
