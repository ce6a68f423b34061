import { z } from 'zod';
import { REBUILDABLE_PROJECTIONS, type RebuildResult, type SessionAudit } from '#read-models';

/** The answers of `POST /v1/sessions/{id}/audit` and `POST /v1/projections/{name}/rebuild` (scope `admin`). */
export const differenceAnswer = z
  .object({
    path: z.string().describe('Where they disagree, e.g. `view.display[3].content` or `snapshot@12.runs…`.'),
    stored: z.unknown().optional().describe('What is stored or served (absent: nothing there).'),
    replayed: z.unknown().optional().describe('What the pure replay of the events gives (absent: nothing there).'),
  })
  .meta({ id: 'Difference' });

export const sessionAuditAnswer = z
  .object({
    sessionId: z.string(),
    version: z.number().int().nonnegative().describe('The stream version audited.'),
    storedHash: z.string().describe('Display transcript hash of the served view.'),
    replayedHash: z.string().describe('Display transcript hash of the pure replay of the events.'),
    match: z.boolean().describe('Chain intact and no difference in any read model.'),
    chain: z
      .object({ ok: z.boolean(), firstBrokenVersion: z.number().int().nullable() })
      .describe("The stream's hash chain: the first version whose stored hash does not follow from the events before it."),
    differences: z.array(differenceAnswer),
    erased: z
      .literal(true)
      .optional()
      .describe('Present when the session was erased: its content is gone by design; the chain and the read models were still verified.'),
  })
  .meta({
    id: 'SessionAudit',
    example: {
      sessionId: 'demo',
      version: 7,
      storedHash: '5d41402abc4b2a76b9719d911017c592ae4b8d3ac2c6a1e7f0f6c3b8c2e4d7a1',
      replayedHash: '5d41402abc4b2a76b9719d911017c592ae4b8d3ac2c6a1e7f0f6c3b8c2e4d7a1',
      match: true,
      chain: { ok: true, firstBrokenVersion: null },
      differences: [],
    },
  }) satisfies z.ZodType<SessionAudit>;

export const projectionNameParam = z.enum(REBUILDABLE_PROJECTIONS);

export const rebuildAnswer = z
  .object({
    name: projectionNameParam,
    rows: z.number().int().nonnegative().describe('Rows in the table now live.'),
    eventsReplayed: z.number().int().nonnegative(),
    seconds: z.number().nonnegative(),
  })
  .meta({ id: 'RebuildResult', example: { name: 'session_index', rows: 120, eventsReplayed: 4210, seconds: 0.84 } }) satisfies z.ZodType<RebuildResult>;
