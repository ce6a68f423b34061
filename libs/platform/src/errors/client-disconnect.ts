import type { FastifyRequest } from 'fastify';

const DISCONNECT_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED']);

/**
 * A broken pipe, a reset or an aborted request body means the client left mid-response. That is
 * logged at debug and counted, never turned into a 500 or an error log.
 */
export function isClientDisconnect(error: unknown, request?: FastifyRequest): boolean {
  const e = error as { code?: string; cause?: { code?: string } } | null;
  if (e?.code && DISCONNECT_CODES.has(e.code)) return true;
  // Fastify reports a body cut off mid-read through its error handler, which Nest wraps.
  if (e?.cause?.code && DISCONNECT_CODES.has(e.cause.code)) return true;
  const raw = request?.raw;
  return Boolean(raw?.socket?.destroyed && (raw.readableAborted || raw.destroyed));
}
