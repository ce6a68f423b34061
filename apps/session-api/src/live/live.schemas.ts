import { z } from 'zod';
import { markerSchema, messageRowSchema, toolCardSchema } from '#domain';
import type { RequestHeader } from '../docs/api-route.decorator.js';
import type { StreamingDelta } from './live-patch.js';
import { streamingAnswer } from '../sessions/session-queries.schemas.js';

/** The `data:` of the events of `GET /v1/sessions/{id}/live`; each event's `id:` is the version. */
const version = z.number().int().nonnegative();

export const transcriptChangedEvent = z
  .object({ version, hash: z.string().describe('The display transcript hash at `version`.') })
  .meta({ id: 'TranscriptChangedEvent', example: { version: 12, hash: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' } });

const codeUnits = z.number().int().nonnegative();

/**
 * With `compact=1`, a patch carries the pending turn's streaming output as a change of the output this
 * stream sent before (what the client then holds), not whole: a token adds its text, not the turn's. Apply: keep
 * the first `textFrom` UTF-16 code units of the text held (a JavaScript string's length) and append `text`; the
 * same for `reasoning`; take `toolCards` when present, else keep those held. A delta of another `runId` than the
 * one held, or the first of a stream, carries everything (`textFrom` and `reasoningFrom` 0, `toolCards` present).
 */
export const streamingDelta = z
  .object({
    runId: z.string(),
    textFrom: codeUnits.describe('Keep this many UTF-16 code units of the text held, then append `text`.'),
    text: z.string(),
    reasoningFrom: codeUnits.describe('Keep this many UTF-16 code units of the reasoning held, then append `reasoning`.'),
    reasoning: z.string(),
    toolCards: z.array(toolCardSchema).optional().describe("The turn's tool cards when they changed since the stream's last patch; absent: unchanged."),
  })
  .meta({ id: 'StreamingDelta', example: { runId: 'run-2', textFrom: 7, text: ' install', reasoningFrom: 0, reasoning: '' } }) satisfies z.ZodType<StreamingDelta>;

const patchHead = {
  sessionId: z.string().describe('The session, as in the `since` answer of `GET …/transcript`.'),
  view: z.enum(['display', 'context']).describe('The view the patch is of (`?view=`), as in the `since` answer.'),
  version,
  hash: z.string().describe('The hash of the whole transcript at `version`, after the patch.'),
  since: version.describe('The version the patch applies to (the one sent before, or Last-Event-ID; 0 at first).'),
  from: z.number().int().nonnegative().describe('Keep the first `from` rows, then append `messages`.'),
  messages: z.array(messageRowSchema),
};

export const transcriptPatchEvent = z
  .object({
    ...patchHead,
    toolCards: z.array(toolCardSchema),
    markers: z.array(markerSchema),
    streaming: streamingAnswer.nullable(),
  })
  .meta({
    id: 'TranscriptPatchEvent',
    example: {
      sessionId: 'demo',
      view: 'display',
      version: 14,
      hash: '2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae',
      since: 12,
      from: 2,
      messages: [{ role: 'user', content: 'And how do I fix it?', timestamp: 1767225700 }],
      toolCards: [],
      markers: [],
      streaming: { runId: 'run-2', text: 'Run npm', reasoning: '', toolCards: [] },
    },
  });

/**
 * A patch of `compact=1`: only what changed since the stream's last patch (the first of a stream carries
 * everything). It applies to the version it was cut from (`since`), holding what that patch left.
 */
export const compactTranscriptPatchEvent = z
  .object({
    ...patchHead,
    toolCards: z.array(toolCardSchema).optional().describe("The transcript's tool cards when they changed since the stream's last patch; absent: keep those held."),
    markers: z.array(markerSchema).optional().describe("The session's markers when they changed since the stream's last patch; absent: keep those held."),
    streamingDelta: streamingDelta.nullable().describe('The streaming output as a change of the one the stream sent before (null: no turn pending).'),
  })
  .meta({
    id: 'CompactTranscriptPatchEvent',
    example: {
      sessionId: 'demo',
      view: 'display',
      version: 15,
      hash: '2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae',
      since: 14,
      from: 3,
      messages: [],
      streamingDelta: { runId: 'run-2', textFrom: 7, text: ' install', reasoningFrom: 0, reasoning: '' },
    },
  });

export const LAST_EVENT_ID: RequestHeader = {
  name: 'Last-Event-ID',
  description: 'The last event id (a version) the client received: the stream resumes after it.',
  schema: z.string().regex(/^\d+$/),
};
