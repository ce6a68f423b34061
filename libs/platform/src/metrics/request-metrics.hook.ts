import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Metrics } from './metrics.js';

/**
 * Request count and duration by method, route template and status. A request no route matched is counted
 * under `(unmatched)`, never under its path: label values stay bounded whatever clients send.
 */
export function registerRequestMetrics(instance: FastifyInstance, metrics: Metrics): void {
  instance.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? '(unmatched)',
      status: String(reply.statusCode),
    };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}
