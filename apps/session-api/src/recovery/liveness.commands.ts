import { Command } from '@nestjs/cqrs';
import type { LeasePhase, LeaseRecord } from '#recovery';

/**
 * The liveness use cases: ephemeral registry facts, not events. The registry's clock stamps them in the
 * handlers (`CLOCK`), so the routes carry only what the worker said.
 */

/** `POST /v1/hosts/{hostId}/started`: an agent host booted; the leases it held are released. */
export class RecordHostStarted extends Command<{ hostId: string; startedAt: number; releasedLeases: number }> {
  constructor(
    readonly hostId: string,
    readonly startedAt: number,
  ) {
    super();
  }
}

/** `PUT /v1/runs/{runId}/lease`: the run is listed until the lease expires. */
export class PutRunLease extends Command<LeaseRecord> {
  constructor(
    readonly runId: string,
    readonly lease: { readonly sessionId: string; readonly hostId: string; readonly ttlSeconds: number; readonly phase?: LeasePhase },
  ) {
    super();
  }
}

/** `DELETE /v1/runs/{runId}/lease`: the worker unregistered the run. */
export class ReleaseRunLease extends Command<{ runId: string; released: boolean }> {
  constructor(readonly runId: string) {
    super();
  }
}

/** `PUT /v1/runs/{runId}/stream`: the live response stream to the client opened. */
export class OpenRunStream extends Command<{ runId: string; sessionId: string; openedAt: number }> {
  constructor(
    readonly runId: string,
    readonly sessionId: string,
  ) {
    super();
  }
}

/** `DELETE /v1/runs/{runId}/stream`: the live response stream closed. */
export class CloseRunStream extends Command<{ runId: string; closed: boolean }> {
  constructor(readonly runId: string) {
    super();
  }
}
