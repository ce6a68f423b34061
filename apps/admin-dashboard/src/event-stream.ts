/**
 * Server-Sent Events over fetch: EventSource cannot send an Authorization header, so the dashboard reads the
 * stream itself, with the client library's parser (the one the library's `TranscriptWatcher` reads with).
 */
import { EventStreamParser, type ServerSentEvent } from '../../../libs/client/src/event-stream-parser.js';

export type StreamEvent = ServerSentEvent;

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
  const parser = new EventStreamParser(options.lastEventId ?? undefined);
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
  return { lastEventId: parser.lastEventId ?? null, retryMs: parser.retryMs };
}
