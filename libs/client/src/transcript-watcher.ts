import type { CompactTranscriptPatchEvent, TranscriptDelta, TranscriptQuery, TranscriptView } from './api-types.js';
import type { ChronicleClientOptions } from './chronicle-client.js';
import { ChronicleProblem } from './chronicle-problem.js';
import { EventStreamParser } from './event-stream-parser.js';
import { isRetryableStatus, type ReconnectOptions, reconnectDelay, sleep } from './reconnect-backoff.js';
import { applyDelta, applyWhole, chainOf, type HeldTranscript, type TranscriptState } from './verified-transcript.js';

export interface WatchOptions {
  /** The transcript view to follow; `display` by default (or the view of `resumeFrom`). */
  readonly view?: TranscriptView;
  /** A state held from before (a cache): the watch resumes after its version, as a reconnect does. */
  readonly resumeFrom?: TranscriptState;
  readonly reconnect?: ReconnectOptions;
  /** No byte for this long and the stream is taken for dead and opened again; 60 s by default (the service sends a heartbeat every 15 s). */
  readonly idleTimeoutMs?: number;
}

/** What a watcher needs of a `ChronicleClient`: where the service is, and the transcript it fetches on a mismatch. */
export interface WatchSource {
  readonly options: ChronicleClientOptions;
  transcriptSince(sessionId: string, since: number, query?: Omit<TranscriptQuery, 'since'>): Promise<TranscriptDelta>;
}

/** The service's hash of a whole transcript is not the one this client computes: client and service disagree on the definition. */
export class TranscriptHashMismatch extends Error {
  override readonly name = 'TranscriptHashMismatch';
}

const isFatal = (error: unknown) => error instanceof TranscriptHashMismatch || (error instanceof ChronicleProblem && !isRetryableStatus(error.status));

/**
 * Follows a session's transcript over `GET /v1/sessions/{id}/live?patches=1` and yields each state it reaches, every
 * one checked against the hash the service served for it (`for await (const state of watcher)`). A dropped or
 * ended stream is opened again with backoff, resuming after the version held (`Last-Event-ID`), so the first
 * patch after it is the delta from that version. A patch whose result does not hash to the served hash is not
 * applied: the whole transcript is fetched again (`source: 'transcript'`) and the stream resumes from it.
 * Problems that retrying cannot fix (401, 403, 404) end the iteration with a `ChronicleProblem`.
 */
export class TranscriptWatcher implements AsyncIterable<TranscriptState> {
  private readonly closed = new AbortController();
  private held: HeldTranscript | null;
  private readonly view: TranscriptView;
  private opened = 0;
  private fetchedWhole = 0;
  private iterated = false;
  /** The reconnection delay the service's last stream asked for (`retry:`): the floor of the backoff after the first retry. */
  private retryHint: number | null = null;

  constructor(
    private readonly client: WatchSource,
    readonly sessionId: string,
    private readonly options: WatchOptions = {},
  ) {
    const resume = options.resumeFrom;
    this.held = resume ? { state: resume, links: chainOf(resume.messages) } : null;
    this.view = options.view ?? resume?.view ?? 'display';
  }

  /** The last verified state, if any. */
  get current(): TranscriptState | null {
    return this.held?.state ?? null;
  }

  /** Streams opened so far (1 + the reconnects). */
  get connections(): number {
    return this.opened;
  }

  /** Whole transcripts fetched after a patch failed its hash check. */
  get refetches(): number {
    return this.fetchedWhole;
  }

  /** Stops watching: the iteration ends after the state it is at. */
  close(): void {
    this.closed.abort();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<TranscriptState> {
    if (this.iterated) throw new Error('A TranscriptWatcher is iterated once.');
    this.iterated = true;
    let attempt = 0;
    try {
      while (!this.closed.signal.aborted) {
        const connection = new AbortController();
        const stop = () => connection.abort();
        this.closed.signal.addEventListener('abort', stop);
        let resumeAtOnce = false;
        try {
          const response = await this.open(connection.signal);
          this.opened += 1;
          attempt = 0;
          for await (const patch of this.patches(response, connection)) {
            const next = applyDelta(this.held, patch, { sessionId: this.sessionId, view: this.view, source: 'patch' });
            this.held = next ?? (await this.fetchWhole());
            yield this.held.state;
            // After a whole fetch the stream's next delta would start from the version it last sent, not ours.
            if (!next) {
              resumeAtOnce = true;
              break;
            }
          }
        } catch (error) {
          if (this.closed.signal.aborted) return;
          if (isFatal(error)) throw error;
        } finally {
          this.closed.signal.removeEventListener('abort', stop);
          connection.abort();
        }
        if (!resumeAtOnce) await sleep(reconnectDelay(attempt++, this.options.reconnect, Math.random, this.retryHint), this.closed.signal);
      }
    } finally {
      this.close();
    }
  }

  private async open(signal: AbortSignal): Promise<Response> {
    const { baseUrl, apiKey, fetch = globalThis.fetch } = this.client.options;
    // Compact patches: a token's carries its own text, not the turn's nor the session's lists (the first is whole).
    const url = `${baseUrl}/v1/sessions/${encodeURIComponent(this.sessionId)}/live?patches=1&compact=1&view=${this.view}`;
    const headers: Record<string, string> = { Authorization: `Bearer ${apiKey}`, Accept: 'text/event-stream' };
    if (this.held) headers['Last-Event-ID'] = String(this.held.state.version);
    const response = await fetch(url, { headers, signal });
    if (!response.ok || !response.body) throw ChronicleProblem.from(response.status, await response.json().catch(() => null));
    return response;
  }

  /** The `patch` events of one response, read as they arrive; a read idle past the timeout drops the connection. */
  private async *patches(response: Response, connection: AbortController): AsyncGenerator<CompactTranscriptPatchEvent> {
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const parser = new EventStreamParser();
    const idleMs = this.options.idleTimeoutMs ?? 60_000;
    try {
      for (;;) {
        const idle = setTimeout(() => connection.abort(), idleMs);
        const chunk = await reader.read().finally(() => clearTimeout(idle));
        if (chunk.done) return;
        for (const event of parser.push(decoder.decode(chunk.value, { stream: true }))) {
          if (event.event === 'patch') yield JSON.parse(event.data) as CompactTranscriptPatchEvent;
        }
        if (parser.retryMs !== null) this.retryHint = parser.retryMs;
      }
    } finally {
      reader.releaseLock();
    }
  }

  private async fetchWhole(): Promise<HeldTranscript> {
    this.fetchedWhole += 1;
    const answer = await this.client.transcriptSince(this.sessionId, 0, { view: this.view, streaming: '1' });
    const whole = applyWhole(answer);
    if (!whole) throw new TranscriptHashMismatch(`The transcript of ${this.sessionId} at version ${answer.version} does not hash to the served ${answer.hash}.`);
    return whole;
  }
}
