/**
 * The client library of Chronicle (`#client` in this repo, `chronicle/client` for users): typed HTTP calls
 * generated from the service's OpenAPI document, a `JournalWriter` over the WebSocket ingest endpoint, and a
 * `TranscriptWatcher` that follows a session's live patches, checking each state against the served hash.
 */
export type {
  IngestOp,
  IngestOps,
  EventsQuery,
  JournalEventBody,
  Marker,
  MessageRow,
  ProblemDetails,
  SessionListPage,
  SessionListQuery,
  SessionSummary,
  StateRow,
  StoredEvent,
  StreamingOutput,
  ToolCard,
  Transcript,
  TranscriptDelta,
  TranscriptPatchEvent,
  TranscriptView,
  WriteResult,
} from './api-types.js';
export type { components, paths } from './generated/openapi.js';
export { ChronicleProblem, type FieldProblem, UNEXPECTED_ANSWER } from './chronicle-problem.js';
export { type ChronicleClient, type ChronicleClientOptions, createChronicleClient } from './chronicle-client.js';
export { JournalWriter, type JournalWriterOptions } from './journal-writer.js';
export { DeliveryUnknown } from './message-window.js';
export { TranscriptHashMismatch, TranscriptWatcher, type WatchOptions } from './transcript-watcher.js';
export type { TranscriptState } from './verified-transcript.js';
export type { ReconnectOptions } from './reconnect-backoff.js';
