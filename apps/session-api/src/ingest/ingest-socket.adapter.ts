import type { IncomingMessage } from 'node:http';
import type { INestApplicationContext } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import { type ProblemDetails, ProblemError, problem } from '#platform';

/** Bytes a message's envelope (`id`, `op`, the ids) may add to the largest body the HTTP route takes. */
export const ENVELOPE_BYTES = 4096;

/** The upgrade request once its key was checked: the key it carries, for the connection's per-message rate limit. */
export type AuthorizedUpgrade = IncomingMessage & { chronicleKey?: { readonly key: string; readonly rateLimitPerMinute?: number } };

type VerifyCallback = (result: boolean, code?: number, message?: string, headers?: Record<string, string>) => void;

/**
 * The `ws` adapter of `@nestjs/platform-ws`, with what every Chronicle socket needs before its upgrade
 * completes: the key checked (`authorize` throws the HTTP answer, a `ProblemError`: 401, 403 or 429, sent as
 * problem details and no socket opened) and the largest message it reads (`ws` closes with 1009 past it).
 */
export class IngestSocketAdapter extends WsAdapter {
  constructor(
    app: INestApplicationContext,
    private readonly authorize: (request: IncomingMessage) => { readonly key: string; readonly rateLimitPerMinute?: number },
    private readonly maxPayload: number,
  ) {
    super(app);
  }

  /**
   * Nest's message routing (`@SubscribeMessage` handlers, which the ingest gateway has none of) would parse
   * every frame a second time: `IngestConnection` reads the frames itself.
   */
  override bindMessageHandlers(): void {}

  override create(port: number, options: Record<string, unknown> = {}): ReturnType<WsAdapter['create']> {

    return super.create(port, {
      ...options,
      maxPayload: this.maxPayload,
      verifyClient: (info: { req: IncomingMessage }, done: VerifyCallback) => {
        try {
          (info.req as AuthorizedUpgrade).chronicleKey = this.authorize(info.req);
          done(true);
        } catch (error) {
          const body: ProblemDetails =
            error instanceof ProblemError
              ? problem(error.status, error.code, error.message, error.errors)
              : problem(500, 'INTERNAL', 'An unexpected error occurred; it has been logged.');
          const headers = error instanceof ProblemError && error.headers ? { ...error.headers } : {};
          done(false, body.status, JSON.stringify(body), { ...headers, 'Content-Type': 'application/problem+json' });
        }
      },
    } as Parameters<WsAdapter['create']>[1]);
  }
}
