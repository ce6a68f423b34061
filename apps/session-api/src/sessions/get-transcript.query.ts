import { Query } from '@nestjs/cqrs';
import type { TranscriptViewName } from '#domain';
import type { ContentCoding } from '#read-models';

export interface TranscriptRequest {
  readonly view: TranscriptViewName;
  /** Time travel: the transcript as of this stream version. */
  readonly at?: number;
  /** A version the client holds: answer the delta from it. */
  readonly since?: number;
  /** Add what the pending turn's journal has produced so far. */
  readonly streaming: boolean;
}

/** What the client already holds (`If-None-Match`) and the codings it accepts (`Accept-Encoding`). */
export interface TranscriptNegotiation {
  readonly ifNoneMatch?: string;
  readonly acceptEncoding?: string;
}

/** The answer's strong tag and, unless the client holds that representation already, its bytes in the chosen coding. */
export type TranscriptAnswer =
  | { readonly etag: string; readonly notModified: true }
  | { readonly etag: string; readonly notModified: false; readonly bytes: Buffer; readonly coding: ContentCoding };

/** `GET /v1/sessions/{id}/transcript`: the display or context transcript, whole or as a delta, conditional and compressed. */
export class GetTranscript extends Query<TranscriptAnswer> {
  constructor(
    readonly sessionId: string,
    readonly request: TranscriptRequest,
    readonly negotiation: TranscriptNegotiation = {},
  ) {
    super();
  }
}
