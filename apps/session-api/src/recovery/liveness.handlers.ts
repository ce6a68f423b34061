import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { LivenessRegistry } from '#recovery';
import { CloseRunStream, OpenRunStream, PutRunLease, RecordHostStarted, ReleaseRunLease } from './liveness.commands.js';
import { CLOCK, type Clock } from './recovery.constants.js';

@CommandHandler(RecordHostStarted)
export class RecordHostStartedHandler implements ICommandHandler<RecordHostStarted> {
  constructor(private readonly registry: LivenessRegistry) {}

  execute({ hostId, startedAt }: RecordHostStarted) {
    return this.registry.hostStarted(hostId, startedAt);
  }
}

@CommandHandler(PutRunLease)
export class PutRunLeaseHandler implements ICommandHandler<PutRunLease> {
  constructor(
    private readonly registry: LivenessRegistry,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute({ runId, lease }: PutRunLease) {
    return this.registry.putLease({ runId, ...lease, at: this.clock() });
  }
}

@CommandHandler(ReleaseRunLease)
export class ReleaseRunLeaseHandler implements ICommandHandler<ReleaseRunLease> {
  constructor(
    private readonly registry: LivenessRegistry,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ runId }: ReleaseRunLease) {
    return { runId, released: await this.registry.deleteLease(runId, this.clock()) };
  }
}

@CommandHandler(OpenRunStream)
export class OpenRunStreamHandler implements ICommandHandler<OpenRunStream> {
  constructor(
    private readonly registry: LivenessRegistry,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute({ runId, sessionId }: OpenRunStream) {
    return this.registry.openStream(runId, sessionId, this.clock());
  }
}

@CommandHandler(CloseRunStream)
export class CloseRunStreamHandler implements ICommandHandler<CloseRunStream> {
  constructor(private readonly registry: LivenessRegistry) {}

  async execute({ runId }: CloseRunStream) {
    return { runId, closed: await this.registry.closeStream(runId) };
  }
}

export const LIVENESS_HANDLERS = [RecordHostStartedHandler, PutRunLeaseHandler, ReleaseRunLeaseHandler, OpenRunStreamHandler, CloseRunStreamHandler];
