import { z } from 'zod';
import type { SessionEventsPage } from './get-session-events.query.js';

/** `GET /v1/sessions/{id}/events`: the session stream, page by page. */
export const storedEventAnswer = z
  .object({
    version: z.number().int().min(1),
    globalPosition: z.number().int().nonnegative().describe("The event's position in the whole log."),
    type: z.string().describe('The domain event type, e.g. `TurnSettled`; names are permanent.'),
    data: z.unknown().describe("The event's data as stored: its shape per type is the component `<type>Data` (e.g. `TurnSettledData`)."),
    metadata: z.record(z.string(), z.unknown()).describe('Request id and other context of the write.'),
    recordedAt: z.number().describe('Epoch seconds.'),
  })
  .meta({ id: 'StoredEvent' });

export const sessionEventsPageAnswer = z
  .object({
    items: z.array(storedEventAnswer),
    nextAfter: z.number().int().nullable().describe('Pass as `after` for the next page; null on the last.'),
  })
  .meta({
    id: 'SessionEventsPage',
    example: {
      items: [
        {
          version: 1,
          globalPosition: 41,
          type: 'SessionStarted',
          data: { sessionId: 'demo', title: null, parentSessionId: null, createdAt: 1767225600 },
          metadata: { requestId: 'req-1' },
          recordedAt: 1767225600.12,
        },
      ],
      nextAfter: null,
    },
  }) satisfies z.ZodType<SessionEventsPage>;
