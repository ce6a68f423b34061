import type { z } from 'zod';
import type { SessionCommand } from '#domain';
import type { WriteOptions } from '#session-commands';
import { journalBody, journalDurability, journalEvents, messagesBody, plainJournalBody, settleBody, stateRowsBody, submissionBody, withoutPrecondition } from './ingestion.schemas.js';

/**
 * The ingestion routes a worker streams through, each as the body it takes and the domain command it becomes:
 * the one home of that mapping for the HTTP routes (`IngestionController`) and the WebSocket's messages
 * (`/v1/ingest`, whose `op` names the route and whose `body` is the route's body).
 */
export const INGEST_OPS = {
  messages: {
    body: messagesBody,
    runId: false,
    command: (body: z.infer<typeof messagesBody>): SessionCommand => ({ type: 'RecordMessages', data: withoutPrecondition(body) }),
  },
  submission: {
    body: submissionBody,
    runId: false,
    command: (body: z.infer<typeof submissionBody>): SessionCommand => ({ type: 'SubmitMessage', data: withoutPrecondition(body) }),
  },
  settle: {
    body: settleBody,
    runId: true,
    command: (body: z.infer<typeof settleBody>, runId: string): SessionCommand => ({
      type: 'SettleTurn',
      data: { runId, ...withoutPrecondition(body) },
    }),
  },
  journal: {
    body: journalBody,
    /** The body's common case without zod (`plainJournalBody`); anything else through `body`. */
    plain: plainJournalBody,
    runId: true,
    command: (body: z.infer<typeof journalBody>, runId: string): SessionCommand => ({
      type: 'RecordJournalEvents',
      data: { runId, events: journalEvents(body) },
    }),
    durability: journalDurability,
  },
  'state-rows': {
    body: stateRowsBody,
    runId: false,
    command: (body: z.infer<typeof stateRowsBody>): SessionCommand => ({ type: 'ObserveStateRows', data: withoutPrecondition(body) }),
  },
} as const;

export type IngestOp = keyof typeof INGEST_OPS;
export const INGEST_OP_NAMES = Object.keys(INGEST_OPS) as [IngestOp, ...IngestOp[]];

/** An op's body (already validated by its schema) and run id as the domain command it becomes, and how durably it commits. */
export function ingestCommand(op: IngestOp, body: unknown, runId: string | undefined): { command: SessionCommand; durability: WriteOptions['durability'] } {
  // Each entry's functions take the body its own schema parsed; the table pairs them.
  const spec = INGEST_OPS[op] as { command: (body: unknown, runId: string | undefined) => SessionCommand; durability?: (body: unknown) => WriteOptions['durability'] };
  return { command: spec.command(body, runId), durability: spec.durability?.(body) ?? 'durable' };
}
