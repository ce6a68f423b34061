import { Controller, Get, Headers, Inject, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { ErasureRecord } from '#domain';
import { Metrics, problem, problemSchema, RequireScope, ZodValidationPipe } from '#platform';
import { SessionViews } from '#read-models';
import { IdParam } from '../sessions/session-id.js';
import { sessionErased, sessionNotFound } from '../sessions/session-not-found.js';
import { openEventStream } from '../http/event-stream.js';
import { LiveHub } from './live-hub.js';
import { CONFIG_HEARTBEAT_MS } from './live.constants.js';
import { ApiRoute } from '../docs/api-route.decorator.js';
import { compactTranscriptPatchEvent, LAST_EVENT_ID, transcriptChangedEvent, transcriptPatchEvent } from './live.schemas.js';
import { patchBody, type PatchLists } from './live-patch.js';

export const liveQuery = z.object({
  /** `1`: `patch` events (the transcript delta since the last event, plus the streaming output) instead of `transcript`. */
  patches: z.enum(['0', '1']).default('0').transform((value) => value === '1'),
  view: z.enum(['display', 'context']).default('display'),
  /**
   * `1` (with `patches=1`): compact patches, each only what changed since the stream's last patch: `streamingDelta`
   * (the streaming output as a change of the one sent before) instead of `streaming` whole, which grows with the
   * turn, and `toolCards` and `markers` only when they changed, which grow with the session.
   */
  compact: z.enum(['0', '1']).default('0').transform((value) => value === '1'),
});

/**
 * `GET /v1/sessions/{id}/live`: Server-Sent Events, one `transcript` event `{ version, hash }` (hash of
 * the display view) per change, id = version so `Last-Event-ID` resumes; with `patches=1`, one `patch` event
 * per change instead: the `since` delta from the version sent before (or from Last-Event-ID; the whole
 * transcript, `from: 0`, when there is none) and the pending turn's streaming output. An erasure ends the
 * stream with one `erased` event (its problem details). Comment heartbeats keep proxies from closing the stream. A client that leaves is unsubscribed at once; shutdown ends every stream.
 */
@ApiTags('live')
@ApiBearerAuth()
@Controller('v1/sessions')
export class LiveController {
  constructor(
    private readonly views: SessionViews,
    private readonly hub: LiveHub,
    private readonly metrics: Metrics,
    @Inject(CONFIG_HEARTBEAT_MS) private readonly heartbeatMs: number,
  ) {}

  @ApiRoute({
    summary: 'Server-Sent Events of the session',
    description:
      'One event per change of the session, `id:` = its version (`Last-Event-ID` resumes after it); `retry: 2000` first, comment heartbeats (`: heartbeat`) between. Shutdown ends the stream: reconnect, to any replica, with Last-Event-ID.',
    query: liveQuery,
    headers: [LAST_EVENT_ID],
    ok: {
      description: 'The event stream: `transcript` events, or with `patches=1` `patch` events instead.',
      idField: 'version',
      events: {
        transcript: { description: 'The session changed: its version and the display transcript hash.', schema: transcriptChangedEvent },
        patch: {
          description:
            "With `patches=1`: the `since` delta from the version sent before (the whole transcript, `from: 0`, at first without Last-Event-ID) and the pending turn's streaming output (`TranscriptPatchEvent`); with `compact=1` only what changed since the stream's last patch (`CompactTranscriptPatchEvent`).",
          schema: z.union([transcriptPatchEvent, compactTranscriptPatchEvent]),
        },
        erased: {
          description: 'The session was erased (on any replica): its problem details (410 `SESSION_ERASED`, no content), then the stream ends; a reconnect answers 410.',
          schema: problemSchema,
        },
      },
    },
  })
  @Get(':id/live')
  @RequireScope('read')
  @ApiProduces('text/event-stream')
  async live(
    @IdParam('id') sessionId: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Query(new ZodValidationPipe(liveQuery, 'query')) query: z.infer<typeof liveQuery>,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const first = await this.views.view(sessionId);
    if (!first.exists) throw sessionNotFound(sessionId);
    if (first.state.erased !== null) throw sessionErased(sessionId, first.state.erased);

    // From here the stream is written to the raw response, past Fastify's reply, until it ends.
    const response = openEventStream(reply);

    let sent = Number.isInteger(Number(lastEventId)) ? Number(lastEventId) : -1;
    // What the client holds after this stream's last patch (nothing before the first): what compact patches change.
    let held: PatchLists | null = null;
    let sending = Promise.resolve();
    let closed = false;
    const write = (chunk: string) => {
      if (closed) return;
      response.write(chunk, (error) => {
        if (error) clientGone();
      });
    };
    const sendUpTo = async (version: number) => {
      if (closed || version <= sent) return;
      if (query.patches) return sendPatch();
      // Hashed once per (session, version) in SessionViews, not once per subscriber.
      const { version: current, transcript, state } = await this.views.transcript(sessionId, 'display');
      if (closed || current <= sent) return;
      if (state.erased !== null) return endErased(state.erased);
      sent = current;
      const { hash } = transcript;
      write(`id: ${current}\nevent: transcript\ndata: ${JSON.stringify({ version: current, hash })}\n\n`);
    };
    // An erased session's stream ends (a reconnect answers 410): its last event is the read's 410, no content.
    // Another replica's erasure arrives as any change does (its notice names the version), and is folded here.
    const endErased = (erased: ErasureRecord) => {
      const refusal = sessionErased(sessionId, erased);
      write(`event: erased\ndata: ${JSON.stringify(problem(refusal.status, refusal.code, refusal.message))}\n\n`);
      close();
    };
    const sendPatch = async () => {
      const since = Math.max(sent, 0);
      const delta = await this.views.transcriptSince(sessionId, query.view, since);
      if (closed || delta.version <= sent) return;
      if (delta.state.erased !== null) return endErased(delta.state.erased);
      sent = delta.version;
      const { version: current, transcript, from, messages, view, state } = delta;
      const next = { toolCards: transcript.toolCards, markers: view.markers, streaming: this.views.streaming(sessionId, current, state) };
      const patch = patchBody({ sessionId, view: query.view, version: current, hash: transcript.hash, since, from, messages }, next, held, query.compact);
      held = next;
      write(`id: ${current}\nevent: patch\ndata: ${JSON.stringify(patch)}\n\n`);
    };
    const enqueue = (version: number) => {
      sending = sending.then(() => sendUpTo(version)).catch(() => close());
    };

    const unsubscribe = this.hub.subscribe(sessionId, enqueue);
    const heartbeat = setInterval(() => write(`: heartbeat\n\n`), this.heartbeatMs);
    heartbeat.unref();
    const close = () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      unsubscribe();
      untrack();
      response.end();
    };
    // The client leaving is how every SSE response ends: a client disconnect, counted once, never an error.
    const clientGone = () => {
      if (!closed) this.metrics.clientDisconnects.inc();
      close();
    };
    // Shutdown ends the stream (the client reconnects to another replica, resuming by Last-Event-ID).
    const untrack = this.hub.track(close);
    response.on('close', clientGone);
    response.on('error', clientGone);
    write(`retry: 2000\n\n`);
    enqueue(first.version);
  }
}
