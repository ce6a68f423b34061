import { Command } from '@nestjs/cqrs';
import type { WriteResult } from './write-result.js';

export interface StartSessionInput {
  readonly sessionId: string;
  readonly title: string | null;
  readonly parentSessionId: string | null;
  readonly createdAt: number;
}

export class StartSession extends Command<WriteResult & { created: boolean }> {
  constructor(
    readonly input: StartSessionInput,
    readonly requestId: string | undefined,
  ) {
    super();
  }
}
