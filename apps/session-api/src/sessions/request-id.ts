import type { FastifyRequest } from 'fastify';

/** The request id Fastify gave this request (from `x-request-id` or generated); stored as event metadata. */
export const requestIdOf = (request: FastifyRequest): string | undefined => request.id || undefined;
