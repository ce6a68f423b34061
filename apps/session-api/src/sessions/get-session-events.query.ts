import { Query } from '@nestjs/cqrs';

export interface SessionEventItem {
  readonly version: number;
  readonly globalPosition: number;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Epoch seconds. */
  readonly recordedAt: number;
}

export interface SessionEventsPage {
  readonly items: SessionEventItem[];
  readonly nextAfter: number | null;
}

export class GetSessionEvents extends Query<SessionEventsPage> {
  constructor(
    readonly sessionId: string,
    readonly after: number,
    readonly limit: number,
  ) {
    super();
  }
}
