import { Command } from '@nestjs/cqrs';
import type { RebuildResult } from '#read-models';

/** `POST /v1/projections/{name}/rebuild`: the read model rebuilt blue/green from the log while reads go on. */
export class RebuildProjection extends Command<RebuildResult> {
  constructor(readonly name: string) {
    super();
  }
}
