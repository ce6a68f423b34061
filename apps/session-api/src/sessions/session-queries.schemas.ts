import { z } from 'zod';
import { journalEventSchema, type JournalState, type JournalSummary, markerSchema, type MarkerCounts, messageRowSchema, type StreamingOutput, toolCardSchema } from '#domain';
import { SESSION_STATUSES } from '#read-models';
import type { RequestHeader, ResponseHeader } from '../docs/api-route.decorator.js';
import type { toSessionSummary } from './session-summary.js';

/** The answers of the read routes (scope `read`), as `SessionQueriesController` serves them. */

const count = z.number().int().nonnegative();
const version = z.number().int().nonnegative().describe('A session stream version.');

export const markerCountsAnswer = z
  .object({ pending: count.describe('Markers still waiting for their journal (`pending_journal`).'), recovered: count, noOutput: count, neutral: count })
  .meta({ id: 'MarkerCounts' }) satisfies z.ZodType<MarkerCounts>;

export const pendingTurnAnswer = z
  .object({ runId: z.string(), text: z.string(), attachments: z.array(z.unknown()), submittedAt: z.number(), source: z.string().nullable() })
  .meta({ id: 'PendingTurn', description: 'The turn submitted and not yet settled or decided.' });

export const sessionSummaryAnswer = z
  .object({
    sessionId: z.string(),
    title: z.string().nullable(),
    parentSessionId: z.string().nullable(),
    archived: z.boolean(),
    version,
    createdAt: z.number().nullable(),
    lastActivityAt: z.number().nullable(),
    messageCount: count,
    status: z.enum(SESSION_STATUSES),
    pendingTurn: pendingTurnAnswer.nullable(),
    markers: markerCountsAnswer,
  })
  .meta({
    id: 'SessionSummary',
    example: {
      sessionId: 'demo',
      title: 'Build failure',
      parentSessionId: null,
      archived: false,
      version: 7,
      createdAt: 1767225600,
      lastActivityAt: 1767225661.25,
      messageCount: 4,
      status: 'active',
      pendingTurn: null,
      markers: { pending: 0, recovered: 1, noOutput: 0, neutral: 0 },
    },
  }) satisfies z.ZodType<ReturnType<typeof toSessionSummary>>;

export const sessionListAnswer = z
  .object({
    items: z.array(sessionSummaryAnswer).describe('Newest activity first, from the async session index (it trails the log by one projector pass).'),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last.'),
  })
  .meta({ id: 'SessionListPage' });

export const streamingAnswer = z
  .object({ runId: z.string(), text: z.string(), reasoning: z.string(), toolCards: z.array(toolCardSchema) })
  .meta({
    id: 'StreamingOutput',
    description: "What the pending turn's journal has produced so far: display-only, never in `messages` or the hash.",
  }) satisfies z.ZodType<StreamingOutput>;

const view = z.enum(['display', 'context']);
const hash = z.string().describe('sha256-based digest of `messages` + `toolCards` in canonical JSON (README "Transcript hash").');
const streaming = streamingAnswer.nullable().optional().describe('With `streaming=1` only.');

export const transcriptAnswer = z
  .object({ sessionId: z.string(), version, view, messages: z.array(messageRowSchema), toolCards: z.array(toolCardSchema), hash, streaming })
  .meta({
    id: 'Transcript',
    example: {
      sessionId: 'demo',
      version: 7,
      view: 'display',
      messages: [
        { role: 'user', content: 'Why does the build fail?', timestamp: 1767225600 },
        { role: 'assistant', content: 'The lockfile is stale.', timestamp: 1767225601 },
      ],
      toolCards: [],
      hash: '5d41402abc4b2a76b9719d911017c592ae4b8d3ac2c6a1e7f0f6c3b8c2e4d7a1',
    },
  });

export const transcriptDeltaAnswer = z
  .object({
    sessionId: z.string(),
    version,
    view,
    since: version.describe('The version the client holds (as asked).'),
    from: count.describe('Keep the first `from` rows held, then append `messages`; 0 = the whole transcript.'),
    messages: z.array(messageRowSchema),
    toolCards: z.array(toolCardSchema),
    markers: z.array(markerSchema),
    hash: hash.describe('The hash of the whole transcript at `version` (after applying the delta).'),
    streaming,
  })
  .meta({
    id: 'TranscriptDelta',
    example: {
      sessionId: 'demo',
      version: 9,
      view: 'display',
      since: 7,
      from: 2,
      messages: [{ role: 'user', content: 'And how do I fix it?', timestamp: 1767225700 }],
      toolCards: [],
      markers: [],
      hash: '2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae',
    },
  });

/** `GET …/transcript`: the delta form when `since` is given. */
export const transcriptReadAnswer = z.union([transcriptDeltaAnswer, transcriptAnswer]);

export const markersAnswer = z.object({ items: z.array(markerSchema) }).meta({ id: 'MarkerList' });

const seq = z.number().int().nonnegative();
const JOURNAL_STATES = ['completed', 'tool_limit_reached', 'interrupted-by-user', 'interrupted-by-crash', 'errored', 'running', 'unknown'] as const satisfies readonly JournalState[];

export const runJournalAnswer = z
  .object({
    runId: z.string(),
    events: z.array(journalEventSchema).describe('De-duplicated by seq (first delivery wins), in seq order.'),
    lastSeq: seq.describe('Highest seq seen, 0 when none.'),
    gaps: z.array(z.tuple([seq, seq])).describe('Inclusive ranges of seqs that never arrived: `[from, to]`.'),
    terminal: z.boolean().describe('A terminal event was seen.'),
    terminalState: z.enum(JOURNAL_STATES).describe('Reference §1.4: the authoritative terminal event\'s state, else `running` / `unknown`.'),
  })
  .meta({
    id: 'RunJournal',
    example: {
      runId: 'run-1',
      events: [{ seq: 1, event: 'token', payload: { text: 'The lock' }, createdAt: 1767225600.5 }],
      lastSeq: 3,
      gaps: [[2, 2]],
      terminal: true,
      terminalState: 'completed',
    },
  }) satisfies z.ZodType<Pick<JournalSummary, 'runId' | 'events' | 'lastSeq' | 'gaps' | 'terminal' | 'terminalState'>>;

export const IF_NONE_MATCH: RequestHeader = {
  name: 'If-None-Match',
  description: 'An ETag of this route: 304 with no body when the representation is unchanged.',
  schema: z.string(),
};

export const ETAG: ResponseHeader = { description: 'Strong tag of this representation (view, version, since, streaming).', schema: z.string() };
