import type { SessionEventType } from './session.events.js';

/**
 * Which fields of an event are personal content: what a user, the model or a tool said (texts, rows, reasoning,
 * tool arguments and results, attachments, titles, journal payloads, decision evidence). They are stored sealed
 * with the session's data key and are what an erasure destroys. Every other field (ids, run ids, seqs, causes,
 * counts, times) stays plain: ordering, idempotency and the recovery supervisor read them without a key.
 * A row travels whole inside `rows` (its id and role with it): nothing reads a stored row without folding it.
 */
export const CONTENT_FIELDS: { readonly [Type in SessionEventType]: readonly string[] } = {
  SessionStarted: ['title'],
  MessagesRecorded: ['rows'],
  UserMessageSubmitted: ['text', 'attachments'],
  TurnSettled: ['rows'],
  JournalEventRecorded: ['payload'],
  StateRowsObserved: ['rows'],
  TranscriptTruncated: [],
  SessionCompressed: [],
  TurnInterrupted: ['evidence'],
  TurnRecoveredFromAgentStore: ['evidence'],
  JournalRecoveryAbandoned: [],
  SessionErased: [],
};

/** What an erased content field reads as: the field's empty value, so an erased event still folds. */
const ERASED_VALUE: { readonly [field: string]: unknown } = {
  title: null,
  rows: [],
  text: '',
  attachments: [],
  payload: {},
  evidence: {},
};

type Data = { readonly [key: string]: unknown };

const fieldsOf = (type: string): readonly string[] => (CONTENT_FIELDS as { readonly [type: string]: readonly string[] | undefined })[type] ?? [];

/** Whether an event of this type carries content (an unknown type is treated as carrying none). */
export const carriesContent = (type: string): boolean => fieldsOf(type).length > 0;

/**
 * An event's data split in two: `plain` without its content fields, and `content` with only them (null when it
 * has none). `joinContent(plain, content)` gives back an object equal to `data` as canonical JSON. Both are new
 * objects, the caller's to extend (a stored form adds its `sealed` to `plain`). A field named `__proto__` stays an
 * own field, as in `joinContent`.
 */
export function splitContent(type: string, data: Data): { readonly plain: Data; readonly content: Data | null } {
  const fields = fieldsOf(type);
  let content: Record<string, unknown> | null = null;
  const plain: Record<string, unknown> = {};
  for (const key of Object.keys(data)) {
    if (fields.includes(key)) put((content ??= {}), key, data[key]);
    else put(plain, key, data[key]);
  }
  return { plain, content };
}

/**
 * `plain`'s fields, then `content`'s (the order `splitContent` took them apart in), without the field `without`
 * names (a stored form's `sealed` or `dropped`): one pass and one object, as it runs for every event a sealed read
 * opens. A field named `__proto__` (parsed JSON can hold one) stays an own field, as a spread keeps it.
 */
export function joinContent(plain: Data, content: Data | null, without?: string): Data {
  if (content === null && without === undefined) return plain;
  const out: Record<string, unknown> = {};
  for (const field of Object.keys(plain)) if (field !== without) put(out, field, plain[field]);
  if (content !== null) for (const field of Object.keys(content)) put(out, field, content[field]);
  return out;
}

function put(out: Record<string, unknown>, field: string, value: unknown): void {
  if (field === '__proto__') Object.defineProperty(out, field, { value, enumerable: true, writable: true, configurable: true });
  else out[field] = value;
}

/** The content an erased event reads with: each content field of its type at its empty value. */
export function erasedContentOf(type: string): Data {
  const out: Record<string, unknown> = {};
  for (const field of fieldsOf(type)) out[field] = ERASED_VALUE[field] ?? null;
  return out;
}

/**
 * The marker an event stored plain carries once an erasure dropped its content (`{ ...plain fields, dropped:
 * "content" }`): it reads as erased, as a sealed event whose key is destroyed does.
 */
export const DROPPED_CONTENT = { field: 'dropped', value: 'content' } as const;

export const isDroppedContent = (data: Data): boolean => data[DROPPED_CONTENT.field] === DROPPED_CONTENT.value;

/** `[first, last]` ranges of sorted, distinct versions. */
export function versionRanges(versions: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const v of versions) {
    const last = out.at(-1);
    if (last && v === last[1] + 1) last[1] = v;
    else out.push([v, v]);
  }
  return out;
}

export const inVersionRanges = (ranges: readonly (readonly [number, number])[], version: number): boolean =>
  ranges.some(([first, last]) => version >= first && version <= last);
