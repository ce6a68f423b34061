import type { FastifyRequest } from 'fastify';

const DISCONNECT_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED']);

const hasDisconnectCode = (error: unknown): boolean => {
  const e = error as { code?: string; cause?: { code?: string } } | null;
  // Fastify reports a body cut off mid-read through its error handler, which Nest wraps (the code is the cause's).
  return Boolean((e?.code && DISCONNECT_CODES.has(e.code)) || (e?.cause?.code && DISCONNECT_CODES.has(e.cause.code)));
};

/** The HTTP client's own connection is gone: its socket destroyed, or its request body aborted. */
function clientConnectionGone(request: FastifyRequest): boolean {
  const raw = request.raw;
  return Boolean(raw.socket?.destroyed || raw.readableAborted);
}

/**
 * The client left mid-request: logged at debug and counted, never answered, never an error log. Only the
 * HTTP client's own connection counts. An ECONNRESET or EPIPE alone proves nothing: the database's socket
 * raises the same codes when PostgreSQL goes away, and that request still has a client waiting for its answer
 * (a 503), so the code is believed only while the request's socket is gone too.
 */
export function isClientDisconnect(error: unknown, request?: FastifyRequest): boolean {
  if (!request || !clientConnectionGone(request)) return false;
  return hasDisconnectCode(error) || request.raw.readableAborted;
}
