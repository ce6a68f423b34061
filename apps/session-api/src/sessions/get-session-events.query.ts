import { Query } from '@nestjs/cqrs';

export interface SessionEventItem {
  readonly version: number;
  readonly globalPosition: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly recordedAt: string;
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
