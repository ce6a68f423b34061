import type { Request } from 'express';

const DISCONNECT_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED']);

/**
 * A broken pipe, a reset or an aborted request body means the client left mid-response. That is
 * logged at debug and counted, never turned into a 500 or an error log.
 */
export function isClientDisconnect(error: unknown, request?: Request): boolean {
  const e = error as { code?: string; type?: string } | null;
  if (e?.type === 'request.aborted') return true;
  if (e?.code && DISCONNECT_CODES.has(e.code)) return true;
  return Boolean(request?.socket?.destroyed && (request.readableAborted || request.destroyed));
}
