import { useEffect, useState } from 'react';
import { type Api, ApiError, path, problemOf, type Transcript, type TranscriptPatch, type View } from './api';
import { isRetryableStatus, reconnectDelay, sleep } from '../../../libs/client/src/reconnect-backoff.js';
import { readEventStream } from './event-stream';
import { applyPatch, type HeldTranscript, holdTranscript } from './transcript-patch';

/**
 * Shown by the browser only, never stored in the session: the live feed stopped while the pending turn was
 * still streaming. It goes once the reconnected feed brings the settled transcript.
 */
export const CONNECTION_NOTICE =
  'Connection interrupted: the browser lost the live SSE connection before the response finished… Reconnecting; the transcript updates once the response has settled.';

export type Connection = 'connecting' | 'live' | 'reconnecting';

export interface LiveTranscript {
  readonly held: HeldTranscript | null;
  readonly error: unknown;
  readonly connection: Connection;
  readonly notice: boolean;
}

/**
 * An answer that retrying cannot change (libs/client's `isRetryableStatus` says which can): the key refused, the
 * session unknown or erased (410 SESSION_ERASED). No answer at all (status 0) is retried, as a 5xx is.
 */
export const isFinalStatus = (status: number) => status >= 400 && !isRetryableStatus(status);

/** The dashboard's backoff (libs/client's `reconnectDelay`, with the server's `retry:` hint): 0.5 s up to 30 s. */
const BACKOFF = { initialDelayMs: 500, maxDelayMs: 30_000 } as const;
/** A connection that stayed open this long (or brought a patch) worked: the next drop starts the backoff over. */
const HEALTHY_MS = 5_000;

/**
 * The transcript once, then only the `patch` events of `/live?patches=1` (never a refetch per change): each
 * patch keeps the first `from` rows held and appends its messages. A dropped connection is resumed with
 * `Last-Event-ID`, so the server sends the delta since the last version we hold.
 */
export function useLiveTranscript(api: Api, sessionId: string, view: View): LiveTranscript {
  const [state, setState] = useState<LiveTranscript>({ held: null, error: undefined, connection: 'connecting', notice: false });

  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    let held: HeldTranscript | null = null;
    let lastEventId: string | null = null;
    let notice = false;
    let connection: Connection = 'connecting';
    const publish = () => !signal.aborted && setState({ held, error: undefined, connection, notice });

    const loadWhole = async () => {
      const [transcript, markers] = await Promise.all([
        api.call(api.http.GET('/v1/sessions/{id}/transcript', { params: { path: { id: sessionId }, query: { view, streaming: '1' } }, signal }), signal) as Promise<Transcript>,
        api.call(api.http.GET('/v1/sessions/{id}/markers', { params: { path: { id: sessionId } }, signal }), signal),
      ]);
      held = holdTranscript(transcript, markers.items);
      lastEventId = String(transcript.version);
    };

    const run = async () => {
      await loadWhole();
      publish();
      let attempt = 0;
      // The server's `retry:` hint, kept from the last stream that sent one (a refused connection sends none).
      let retryHint: number | null = null;
      while (!signal.aborted) {
        // One controller per connection, so a patch we cannot apply can drop just this connection.
        const connectionControl = new AbortController();
        const stop = () => connectionControl.abort();
        signal.addEventListener('abort', stop, { once: true });
        let stale = false;
        let openedAt: number | null = null;
        let patched = false;
        try {
          const end = await readEventStream({
            url: `${path`/v1/sessions/${sessionId}/live`}?patches=1&compact=1&view=${view}`,
            headers: api.headers(),
            lastEventId,
            signal: connectionControl.signal,
            onOpen: () => {
              openedAt = Date.now();
              connection = 'live';
              publish();
            },
            onEvent: (event) => {
              if (event.event !== 'patch' || !held || stale) return;
              const next = applyPatch(held, JSON.parse(event.data) as TranscriptPatch);
              if (next === null) {
                stale = true;
                connectionControl.abort();
                return;
              }
              held = next;
              patched = true;
              lastEventId = event.id ?? String(next.version);
              if (notice && next.streaming === null) notice = false;
              publish();
            },
          });
          if (end.retryMs !== null) retryHint = end.retryMs;
        } catch (failure) {
          if (failure instanceof Response) {
            const problem = await problemOf(failure);
            // The key refused, the session unknown or erased (410): retrying would not help, the feed ends here.
            if (isFinalStatus(problem.status)) throw new ApiError(problem);
          }
        } finally {
          signal.removeEventListener('abort', stop);
        }
        if (signal.aborted) return;
        if (stale) {
          // A delta from a version we never held: the whole transcript again, then the feed from there.
          await loadWhole();
          publish();
          continue;
        }
        // The feed stopped. While a response was streaming, say so until the settled transcript is back.
        if (held?.streaming) notice = true;
        connection = 'reconnecting';
        publish();
        // A connection that worked for a while starts the backoff over; one refused or dropped at once does not.
        if (patched || (openedAt !== null && Date.now() - openedAt >= HEALTHY_MS)) attempt = 0;
        await sleep(reconnectDelay(attempt, BACKOFF, Math.random, retryHint), signal);
        attempt++;
      }
    };

    run().catch((error) => !signal.aborted && setState((s) => ({ ...s, error })));
    return () => controller.abort();
  }, [api, sessionId, view]);

  return state;
}
