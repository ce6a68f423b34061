import type { Request } from 'express';

/** The request id pino-http gave this request (from `x-request-id` or generated); stored as event metadata. */
export const requestIdOf = (request: Request): string | undefined => String(request.id ?? '') || undefined;
