import type { FastifyInstance } from 'fastify';

/** Methods that only read: a reset read is the client's to retry; a write is answered before shutdown goes on. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** How long shutdown waits for the writes under way to be answered (then the sockets still open are destroyed). */
export const WRITE_DRAIN_MS = 5000;

/**
 * The HTTP writes under way, counted from `onRequest` until their response is written out or their connection
 * closes. Shutdown destroys the sockets still open (`forceCloseConnections`, so a client holding a keep-alive
 * socket or a stream never holds it up) and then ends the database pool: a write still running there was reset
 * and failed on the ended pool. `drain` waits for those writes first, at most `WRITE_DRAIN_MS`.
 */
export class WritesInFlight {
  private count = 0;
  private readonly idle = new Set<() => void>();

  get size(): number {
    return this.count;
  }

  register(fastify: FastifyInstance): void {
    fastify.addHook('onRequest', (request, reply, done) => {
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

  /** Resolves once no write is under way, or after `timeoutMs`: whichever comes first. */
  async drain(timeoutMs = WRITE_DRAIN_MS): Promise<void> {
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
