import { Command } from '@nestjs/cqrs';
import type { StartedJob } from './audit-jobs.js';

/** Starts the whole-store audit job (or answers the one already running). */
export class StartStoreAudit extends Command<StartedJob> {
  constructor(readonly since: Date | null) {
    super();
  }
}
