import { z } from 'zod';
import { isPlainObject, onlyKeys, type SessionCommand } from '#domain';
import { type FieldProblem, ProblemError, zodProblems } from '#platform';
import { checkId } from '../sessions/session-id.js';
import { INGEST_OP_NAMES, INGEST_OPS, type IngestOp, ingestCommand } from '../sessions/ingest-ops.js';

/** A message's correlation id, echoed in its reply: the client's own, a string or an integer. */
export type MessageId = string | number;

/**
 * One message of `/v1/ingest`: one command of the HTTP contract. `op` names the route, `sessionId` and `runId`
 * are its path parameters and `body` is exactly the route's body (its `expectedVersion` included).
 */
export const ingestFrame = z
  .object({
    id: z.union([z.string().min(1).max(128), z.number().int().safe()]),
    op: z.enum(INGEST_OP_NAMES),
    sessionId: z.string(),
    runId: z.string().optional(),
    body: z.unknown(),
  })
  .strict();

export type IngestFrame = z.infer<typeof ingestFrame>;

/** A validated message: the session it writes, its command and precondition, ready for the command bus. */
export interface IngestMessage {
  readonly id: MessageId;
  readonly op: IngestOp;
  readonly sessionId: string;
  readonly command: SessionCommand;
  readonly expectedVersion: number | undefined;
  readonly durability: 'durable' | 'relaxed' | undefined;
}

/** The reply to every message, sent once: the HTTP route's status and answer, or its problem details. */
export interface IngestReply {
  readonly id: MessageId | null;
  readonly status: number;
  readonly body: unknown;
}

const invalid = (detail: string, errors: FieldProblem[]) => new ProblemError(400, 'VALIDATION_FAILED', detail, errors);

/**
 * The id, when the message has a usable one (a reply to a message whose id cannot be read carries `null`).
 */
export function messageIdOf(parsed: unknown): MessageId | null {
  const id = (parsed as { id?: unknown } | null)?.id;
  return ingestFrame.shape.id.safeParse(id).success ? (id as MessageId) : null;
}

/** Parses a text frame's JSON; a frame that is not JSON is a 400 naming the message. */
export function parseFrameText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalid('The message is not valid JSON.', [{ path: '(message)', message: (error as Error).message }]);
  }
}

/**
 * Checks a parsed frame as the HTTP route checks its request: the envelope's fields, the ids (as path
 * parameters are), then the body against the route's schema, every bad field named (body fields under `body.`).
 * Throws a `ProblemError` (400) and builds nothing on any problem.
 */
export function validateFrame(parsed: unknown): IngestMessage {
  const { id, op, sessionId, runId, body } = plainFrame(parsed) ?? parsedFrameOf(parsed);
  checkId(sessionId, 'sessionId');
  const spec = INGEST_OPS[op];
  if (spec.runId && runId === undefined) throw invalid(`The op "${op}" needs a runId.`, [{ path: 'runId', message: 'required' }]);
  if (!spec.runId && runId !== undefined) throw invalid(`The op "${op}" takes no runId.`, [{ path: 'runId', message: `not a field of op "${op}"` }]);
  if (runId !== undefined) checkId(runId, 'runId');
  const data = (('plain' in spec ? spec.plain(body) : null) ?? parsedBodyOf(spec.body, body)) as { expectedVersion?: number };
  const { command, durability } = ingestCommand(op, data, runId);
  return { id, op, sessionId, command, durability, expectedVersion: data.expectedVersion };
}

const FRAME_KEYS = ['id', 'op', 'sessionId', 'runId', 'body'];

/**
 * `ingestFrame`'s answer for the usual envelope (its four fields and a runId, well formed) without zod, or null:
 * the frame then goes through the schema, which names every bad field. A worker sends one per token;
 * `ingest-frames.property.unit.spec.ts` holds this to the schema.
 */
export function plainFrame(parsed: unknown): IngestFrame | null {
  if (!isPlainObject(parsed)) return null;
  const { id, op, sessionId, runId, body } = parsed;
  if (body === undefined || !onlyKeys(parsed, FRAME_KEYS)) return null;
  if (typeof id === 'string' ? id.length < 1 || id.length > 128 : !Number.isSafeInteger(id)) return null;
  if (typeof op !== 'string' || !Object.hasOwn(INGEST_OPS, op)) return null;
  if (typeof sessionId !== 'string' || (runId !== undefined && typeof runId !== 'string')) return null;
  return { id: id as MessageId, op: op as IngestOp, sessionId, ...(runId === undefined ? {} : { runId }), body };
}

function parsedFrameOf(parsed: unknown): IngestFrame {
  const frame = ingestFrame.safeParse(parsed);
  if (!frame.success) throw invalid('The message has invalid fields.', zodProblems(frame.error).map((p) => ({ ...p, path: p.path === '(body)' ? '(message)' : p.path })));
  return frame.data;
}

/** The body parsed by its op's schema; a 400 naming every bad field (under `body.`) otherwise. */
function parsedBodyOf(schema: z.ZodType, body: unknown): unknown {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const errors = zodProblems(parsed.error).map((p) => ({ ...p, path: p.path === '(body)' ? 'body' : `body.${p.path}` }));
  throw invalid('The message body has invalid fields.', errors);
}
