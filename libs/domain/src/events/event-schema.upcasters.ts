import type { SessionEventType } from './session.events.js';

/**
 * Schema evolution. An event is stored with the schema version of its type at the time it was written
 * (`metadata.schema`; absent means 1) and never rewritten; a reader turns it into the current version with the
 * upcasters below, one step per version, before anything folds, audits or shows it. A change to an event's shape
 * adds a version here and a step from the one before; a step is pure and total (it accepts anything the older
 * version allowed). `test/fixtures/compat/` holds a log written by an older Chronicle: it must fold to the same
 * transcripts in every later version.
 */
export const EVENT_SCHEMA_VERSIONS: { readonly [Type in SessionEventType]: number } = {
  SessionStarted: 1,
  MessagesRecorded: 1,
  UserMessageSubmitted: 1,
  TurnSettled: 1,
  JournalEventRecorded: 1,
  StateRowsObserved: 1,
  TranscriptTruncated: 1,
  SessionCompressed: 1,
  TurnInterrupted: 1,
  // 2: `evidence` is always present (version 1 left it out when the decision had none).
  TurnRecoveredFromAgentStore: 2,
  JournalRecoveryAbandoned: 1,
  SessionErased: 1,
};

type Data = { readonly [key: string]: unknown };

/** `UPCASTERS[type][v]` turns version v of the type's data into version v + 1. */
const UPCASTERS: { readonly [type: string]: { readonly [from: number]: (data: Data) => Data } } = {
  TurnRecoveredFromAgentStore: {
    1: (data) => (data.evidence === undefined ? { ...data, evidence: {} } : data),
  },
};

/** The schema version a writer stamps on a new event of this type (1 for a type the catalogue does not know). */
export const schemaVersionOf = (type: string): number =>
  (EVENT_SCHEMA_VERSIONS as { readonly [type: string]: number | undefined })[type] ?? 1;

/** An event's metadata stamp: `{ schema }` for a type past version 1, nothing for the rest (absent is 1). */
export function schemaStampOf(type: string): { readonly schema?: number } {
  const version = schemaVersionOf(type);
  return version > 1 ? { schema: version } : {};
}

/** A stored schema version as the metadata holds it (absent or unreadable: 1). */
export const storedSchemaOf = (metadata: unknown): number => {
  const schema = (metadata as { schema?: unknown } | null | undefined)?.schema;
  return typeof schema === 'number' && Number.isInteger(schema) && schema >= 1 ? schema : 1;
};

export class UnknownSchemaVersionError extends Error {
  override readonly name = 'UnknownSchemaVersionError';
  constructor(
    readonly type: string,
    readonly schema: number,
  ) {
    super(`a ${type} event of schema ${schema} was written by a newer Chronicle than this one (which knows ${schemaVersionOf(type)})`);
  }
}

/**
 * An event's data at the current version of its type. The same object when it is current already (the hot path
 * costs a comparison); an event newer than this code throws: folding it as if it were older would be a guess.
 */
export function upcastEventData(type: string, schema: number, data: Data): Data {
  const current = schemaVersionOf(type);
  if (schema === current) return data;
  if (schema > current) throw new UnknownSchemaVersionError(type, schema);
  let out = data;
  for (let version = schema; version < current; version += 1) {
    const step = UPCASTERS[type]?.[version];
    if (step !== undefined) out = step(out);
  }
  return out;
}
