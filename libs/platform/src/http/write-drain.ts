import type { FastifyInstance } from 'fastify';
import { problem, RETRY_AFTER_BY_CODE, STATUS_BY_CODE } from '../errors/problem.js';

/** Methods that only read: a reset read is the client's to retry; a write is answered before shutdown goes on. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** How long shutdown waits for the writes under way to be answered (then the sockets still open are destroyed). */
export const WRITE_DRAIN_MS = 5000;

/** What a request that arrives once shutdown has begun is answered (503, with `Retry-After` and `Connection: close`). */
export const SHUTTING_DOWN_PROBLEM = problem(
  STATUS_BY_CODE.SHUTTING_DOWN,
  'SHUTTING_DOWN',
  'This replica is shutting down: nothing was done; send the request again (to another replica, or once it is back).',
);

/**
 * The HTTP writes under way, counted from `onRequest` until their response is written out or their connection
 * closes. Shutdown destroys the sockets still open (`forceCloseConnections`, so a client holding a keep-alive
 * socket or a stream never holds it up) and then ends the database pool: a write still running there was reset
 * and failed on the ended pool. `drain` waits for those writes first, at most `WRITE_DRAIN_MS`.
 *
 * From `drain` on, a request that arrives (the listener stays open while the writes under way are answered) is
 * answered 503 `SHUTTING_DOWN` at once, its connection closed, nothing done: a client retries it elsewhere, a load
 * balancer sees `/health/ready` fail, and no new write joins the drain (writers that kept sending held it open
 * until its timeout, and the requests taken meanwhile were reset when the sockets were destroyed).
 */
export class WritesInFlight {
  private count = 0;
  private closing = false;
  private readonly idle = new Set<() => void>();

  get size(): number {
    return this.count;
  }

  register(fastify: FastifyInstance): void {
    fastify.addHook('onRequest', (request, reply, done) => {
      if (this.closing) {
        void reply
          .code(SHUTTING_DOWN_PROBLEM.status)
          .header('retry-after', String(RETRY_AFTER_BY_CODE.SHUTTING_DOWN))
          .header('connection', 'close')
          .type('application/problem+json')
          .send(SHUTTING_DOWN_PROBLEM);
        return;
      }
      if (!READS.has(request.method)) {
        this.count += 1;
        reply.raw.once('close', () => {
          this.count -= 1;
          if (this.count === 0) for (const resolve of this.idle) resolve();
        });
      }
      done();
    });
  }

  /** Refuses new requests from now on; resolves once no write is under way, or after `timeoutMs`: whichever comes first. */
  async drain(timeoutMs = WRITE_DRAIN_MS): Promise<void> {
    this.closing = true;
    if (this.count === 0) return;
    let timer: NodeJS.Timeout | undefined;
    let settle: () => void = () => undefined;
    await new Promise<void>((resolve) => {
      settle = resolve;
      this.idle.add(resolve);
      timer = setTimeout(resolve, timeoutMs);
    });
    clearTimeout(timer);
    this.idle.delete(settle);
  }
}
