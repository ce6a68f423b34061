import type { z } from 'zod';
import { DomainError, type FieldError } from '../errors/domain.error.js';
import { sessionEventSchemas } from './session-event.schemas.js';
import { SESSION_EVENT_TYPES, type SessionEvent, type SessionEventType } from './session.events.js';

/** Dotted field paths (`data.rows.0.role`), the form problem details list them in. */
export function fieldErrorsOf(error: z.ZodError, prefix: readonly PropertyKey[] = []): FieldError[] {
  return error.issues.map((issue) => ({
    path: [...prefix, ...issue.path].map(String).join('.'),
    message: issue.message,
  }));
}

export const isSessionEventType = (type: unknown): type is SessionEventType =>
  typeof type === 'string' && (SESSION_EVENT_TYPES as readonly string[]).includes(type);

export type SessionEventParseResult =
  | { readonly ok: true; readonly event: SessionEvent }
  | { readonly ok: false; readonly errors: readonly FieldError[] };

/** Validates `{ type, data }` against the catalogue; data comes back with its defaults applied. */
export function safeParseSessionEvent(input: unknown): SessionEventParseResult {
  if (typeof input !== 'object' || input === null) {
    return { ok: false, errors: [{ path: '', message: 'an event is an object { type, data }' }] };
  }
  const { type, data } = input as { type?: unknown; data?: unknown };
  if (!isSessionEventType(type)) {
    return { ok: false, errors: [{ path: 'type', message: `unknown event type ${JSON.stringify(type)}` }] };
  }
  const parsed = sessionEventSchemas[type].safeParse(data);
  if (!parsed.success) return { ok: false, errors: fieldErrorsOf(parsed.error, ['data']) };
  return { ok: true, event: { type, data: parsed.data } as SessionEvent };
}

/** As `safeParseSessionEvent`, throwing a VALIDATION `DomainError` that lists every bad field. */
export function parseSessionEvent(input: unknown): SessionEvent {
  const result = safeParseSessionEvent(input);
  if (!result.ok) throw new DomainError('VALIDATION', 'invalid session event', result.errors);
  return result.event;
}
