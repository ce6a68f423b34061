import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import { DROPPED_CONTENT, erasedContentOf, isDroppedContent, joinContent, splitContent, storedSchemaOf, upcastEventData } from '#domain/replay';
import { UnstorableTextError, unstorable } from '../storable-text.js';

/**
 * An event's content sealed with its session's data key: AES-256-GCM, a fresh 96-bit IV per seal, the stream
 * id and event type as additional data (a sealed content moved to another session or event does not open).
 * The stored data is the event's plain fields plus `sealed`: for an event sealed alone `"1:" + base64(iv ‖ tag
 * ‖ ciphertext)`, the ciphertext being the JSON of its content fields (`splitContent`); for a member of a run
 * (consecutive events with content of one append, sealed with one call) its segment of the run's ciphertext
 * (`sealEventsData`). The chain hashes that stored form, so it verifies with or without the key.
 */
export const SEALED_FIELD = 'sealed';
const PREFIX = '1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

type Data = { readonly [key: string]: unknown };

/** A session's data key: 32 bytes and the id the key table and `SessionErased` name it by. */
export interface DataKey {
  readonly id: string;
  readonly key: Buffer;
}

/**
 * The additional data of a seal, per stream and purpose: kept, since an append of a streaming turn seals the same
 * pair again and again (making the buffer was a twentieth of a token's seal). Bounded: dropped whole when full.
 */
const aads = new Map<string, Buffer>();
const AADS_KEPT = 4096;

function aadOf(streamId: string, type: string): Buffer {
  const text = `${streamId}\u0000${type}`;
  let aad = aads.get(text);
  if (aad === undefined) {
    if (aads.size >= AADS_KEPT) aads.clear();
    aad = Buffer.from(text);
    aads.set(text, aad);
  }
  return aad;
}

export function sealContent(key: Buffer, streamId: string, type: string, content: Data): string {
  const text = JSON.stringify(content);
  // Sealed, a NUL would be stored; but the read models built from the content (jsonb) could not hold it, and a
  // store with sealing off refuses it: the same refusal either way (storable-text.ts).
  if (unstorable(text)) throw new UnstorableTextError(streamId);
  return sealText(key, streamId, type, text);
}

export function openContent(key: Buffer, streamId: string, type: string, sealed: string): Data {
  return JSON.parse(openText(key, streamId, type, sealed)) as Data;
}

/**
 * Random IVs drawn from a pool filled 1,024 at a time: one call to the system's random source per IV was a third
 * of a seal's cost (bench/README.md, "Encryption at rest"). Each IV is still 96 random bits, used once.
 */
const ivPool = Buffer.allocUnsafe(IV_BYTES * 1024);
let ivAt = ivPool.length;

/** A text sealed with the key, bound to the stream and a purpose (an event type, `snapshot`). */
function nextIv(): Buffer {
  if (ivAt >= ivPool.length) {
    randomFillSync(ivPool);
    ivAt = 0;
  }
  const iv = ivPool.subarray(ivAt, ivAt + IV_BYTES);
  ivAt += IV_BYTES;
  return iv;
}

export function sealText(key: Buffer, streamId: string, type: string, text: string): string {
  const iv = nextIv();
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aadOf(streamId, type));
  const body = cipher.update(text, 'utf8');
  cipher.final();
  const out = Buffer.allocUnsafe(IV_BYTES + TAG_BYTES + body.length);
  iv.copy(out, 0);
  cipher.getAuthTag().copy(out, IV_BYTES);
  body.copy(out, IV_BYTES + TAG_BYTES);
  return PREFIX + out.toString('base64');
}

export function openText(key: Buffer, streamId: string, type: string, sealed: string): string {
  if (!sealed.startsWith(PREFIX)) throw new SealError(`unknown sealed form ${JSON.stringify(sealed.slice(0, 8))}`);
  const bytes = Buffer.from(sealed.slice(PREFIX.length), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(aadOf(streamId, type));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  const plain = decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES));
  // GCM's final answers nothing more (no copy of the text to join it to: a snapshot is tens of kB); it throws
  // when the tag does not match, before the text is answered.
  decipher.final();
  return plain.toString('utf8');
}

/**
 * A snapshot's state text as stored: `{"sealed": …}` with the session's data key (a snapshot holds the whole
 * transcript), or the text itself for a session without a key.
 */
export const sealSnapshotText = (key: Buffer | null, streamId: string, text: string): string =>
  key === null ? text : JSON.stringify({ [SEALED_FIELD]: sealText(key, streamId, 'snapshot', text) });

/** Whether a stored snapshot text is sealed (`sealSnapshotText`'s form; a plain state starts with its version). */
export const isSealedSnapshotText = (stored: string): boolean => stored.startsWith(`{"${SEALED_FIELD}":`);

/** The state text of a stored snapshot: opened with the key; null when it is sealed and the key is gone. */
export function openSnapshotText(key: Buffer | null, streamId: string, stored: string): string | null {
  if (!isSealedSnapshotText(stored)) return stored;
  if (key === null) return null;
  const sealed = sealedSnapshotField(stored);
  if (typeof sealed !== 'string') return null;
  return openText(key, streamId, 'snapshot', sealed);
}

const SEALED_SNAPSHOT_HEAD = `{"${SEALED_FIELD}":"`;

/**
 * The sealed text of a stored snapshot: read off the stored text as `sealSnapshotText` writes it (a base64 text
 * needs no escape), else parsed. A snapshot is tens of kB; parsing it whole to take its one field was a third
 * of what opening one cost the sealed audit.
 */
function sealedSnapshotField(stored: string): unknown {
  const end = stored.length - 2;
  if (stored.startsWith(SEALED_SNAPSHOT_HEAD) && stored.endsWith('"}') && stored.indexOf('"', SEALED_SNAPSHOT_HEAD.length) === end && !stored.includes('\\')) {
    return stored.slice(SEALED_SNAPSHOT_HEAD.length, end);
  }
  return (JSON.parse(stored) as Data)[SEALED_FIELD];
}

export class SealError extends Error {
  override readonly name = 'SealError';
}

/** An event's data as stored: its content sealed when it has any (an event without content is stored as it is). */
export function sealEventData(key: Buffer, streamId: string, type: string, data: Data): Data {
  const split = splitContent(type, data);
  return split.content === null ? data : sealedAlone(key, streamId, type, split as { plain: Data; content: Data });
}

/** The stored form of an event with content sealed alone: its plain fields and `sealed`, `"1:" + …`. */
const sealedAlone = (key: Buffer, streamId: string, type: string, split: { readonly plain: Data; readonly content: Data }): Data =>
  withSealed(split.plain, sealContent(key, streamId, type, split.content));

/**
 * The stored form: `plain` (`splitContent`'s, a fresh object this module owns) with `sealed` added in place. A
 * copy per event was a tenth of what sealing a run cost an event.
 */
function withSealed(plain: Data, sealed: string): Data {
  (plain as Record<string, unknown>)[SEALED_FIELD] = sealed;
  return plain;
}

/**
 * A run: consecutive events of one append that all carry content, sealed together with one AES-256-GCM call.
 * One call per event was most of what sealing cost a batch (a cipher's setup is ~20× the encryption of an
 * event's few hundred bytes; bench/README.md, "Encryption at rest"). Member i of k stores
 * `sealed: "2:" + i + "/" + k + ":" + base64(part)`, where the first member's part is iv ‖ tag ‖ its ciphertext
 * and every other member's is its ciphertext: each event's content is its own segment of the one ciphertext, so
 * the chain still hashes each event's stored form. The additional data binds the stream, and each member's event
 * type and byte length in order: a member moved, dropped, reordered or with a boundary shifted into its
 * neighbour fails the tag, and the whole run then reads as erased (its chain breaks at the edited event). A
 * member opens only with its whole run, which `runEdges` tells a reader how to fetch.
 */
const RUN_PREFIX = '2:';
/**
 * Members of one run at most: a longer stretch of an append is sealed as several runs. A read of one event reads
 * its whole run, so this bounds what a page of a stream (down to one event) reads beyond what it answers;
 * spread over 64 events, the one cipher call costs a fraction of a microsecond each.
 */
export const MAX_RUN = 64;

interface RunMember {
  readonly index: number;
  readonly size: number;
  /** Where the base64 part starts in the sealed text. */
  readonly at: number;
}

const DIGIT_0 = 48;
const DIGIT_9 = 57;

/**
 * The decimal number `sealEventsData` writes at `from` (no leading zero, at most 9 digits) and the position after
 * it, packed as `value * 16 + digits` (at most 9 digits: below 2^53); -1 when there is none. Read by hand: it runs
 * twice per stored member on every read of a run (a regular expression was 4 % of the sealed audit's lane).
 */
function decimalAt(text: string, from: number): number {
  let value = 0;
  let digits = 0;
  for (let at = from; at < text.length && digits <= 9; at += 1) {
    const code = text.charCodeAt(at);
    if (code < DIGIT_0 || code > DIGIT_9) break;
    if (digits === 1 && value === 0) return -1;
    value = value * 10 + (code - DIGIT_0);
    digits += 1;
  }
  return digits === 0 || digits > 9 ? -1 : value * 16 + digits;
}

/**
 * The run position a stored event's data names, when it is a member of a run (null otherwise, or when edited):
 * `2:<index>/<size>:` as `sealEventsData` writes it, decimal, no leading zero, at most 9 digits each.
 */
export function runMemberOf(data: unknown): RunMember | null {
  if (!isSealed(data)) return null;
  const sealed = data[SEALED_FIELD];
  if (!sealed.startsWith(RUN_PREFIX)) return null;
  // An edited position is no member: it does not open, and reads as erased like any edited ciphertext.
  const indexAt = decimalAt(sealed, RUN_PREFIX.length);
  if (indexAt < 0) return null;
  const slash = RUN_PREFIX.length + (indexAt % 16);
  if (sealed.charCodeAt(slash) !== 0x2f) return null;
  const sizeAt = decimalAt(sealed, slash + 1);
  if (sizeAt < 0 || sizeAt < 16) return null;
  const colon = slash + 1 + (sizeAt % 16);
  if (sealed.charCodeAt(colon) !== 0x3a) return null;
  const index = Math.floor(indexAt / 16);
  const size = Math.floor(sizeAt / 16);
  // A run this code never writes (past MAX_RUN) is an edit too; so a read never reaches further than MAX_RUN.
  if (index >= size || size > MAX_RUN) return null;
  return { index, size, at: colon + 1 };
}

function runAadOf(streamId: string, types: readonly string[], lengths: readonly number[]): Buffer {
  let text = `${streamId}\u0000run`;
  for (let i = 0; i < types.length; i += 1) text += `\u0000${types[i]}\u0000${lengths[i]}`;
  return Buffer.from(text);
}

/**
 * The stored data of an append's events: each run of two or more consecutive events with content sealed with
 * one call (a run), a lone event with content as `sealEventData` seals it, an event without content as it is.
 */
export function sealEventsData(key: Buffer, streamId: string, events: readonly { readonly type: string; readonly data: unknown }[]): Data[] {
  const split = events.map((event) => splitContent(event.type, event.data as Data));
  const out = new Array<Data>(events.length);
  for (let i = 0; i < events.length; ) {
    if (split[i].content === null) {
      out[i] = events[i].data as Data;
      i += 1;
      continue;
    }
    let end = i + 1;
    while (end < events.length && end - i < MAX_RUN && split[end].content !== null) end += 1;
    if (end - i === 1) out[i] = sealedAlone(key, streamId, events[i].type, split[i] as { plain: Data; content: Data });
    else sealRun(key, streamId, events, split, i, end, out);
    i = end;
  }
  return out;
}

function sealRun(
  key: Buffer,
  streamId: string,
  events: readonly { readonly type: string }[],
  split: readonly { readonly plain: Data; readonly content: Data | null }[],
  from: number,
  to: number,
  out: Data[],
): void {
  const texts: string[] = [];
  const lengths: number[] = [];
  const types: string[] = [];
  for (let i = from; i < to; i += 1) {
    const text = JSON.stringify(split[i].content);
    if (unstorable(text)) throw new UnstorableTextError(streamId);
    texts.push(text);
    lengths.push(Buffer.byteLength(text, 'utf8'));
    types.push(events[i].type);
  }
  const iv = nextIv();
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(runAadOf(streamId, types, lengths));
  const body = cipher.update(texts.join(''), 'utf8');
  cipher.final();
  const size = to - from;
  let offset = 0;
  for (let m = 0; m < size; m += 1) {
    const segment = body.subarray(offset, offset + lengths[m]);
    offset += lengths[m];
    const part = m === 0 ? Buffer.concat([iv, cipher.getAuthTag(), segment]) : segment;
    out[from + m] = withSealed(split[from + m].plain, `${RUN_PREFIX}${m}/${size}:${part.toString('base64')}`);
  }
}

/** The contents of a whole run's members, in order; null when it does not open (edited, or a member missing). */
function openRun(key: Buffer, streamId: string, members: readonly { readonly type: string; readonly sealed: string; readonly at: number }[]): Data[] | null {
  try {
    // Every member's part decoded into one buffer (the head's iv and tag, then the ciphertext's segments in order).
    const lengths = members.map((member) => base64Bytes(member.sealed, member.at));
    if (lengths.length === 0 || lengths.some((length) => length < 0) || lengths[0] < IV_BYTES + TAG_BYTES) return null;
    const bytes = Buffer.allocUnsafe(lengths.reduce((sum, length) => sum + length, 0));
    let at = 0;
    members.forEach((member, m) => {
      if (bytes.write(member.sealed.slice(member.at), at, lengths[m], 'base64') !== lengths[m]) throw new SealError('a run member that is not base64');
      at += lengths[m];
    });
    const segmentLengths = lengths.map((length, m) => (m === 0 ? length - IV_BYTES - TAG_BYTES : length));
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(runAadOf(streamId, members.map((member) => member.type), segmentLengths));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const plain = decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES));
    // GCM's final answers nothing more; it throws when the tag does not match, before any member is parsed.
    decipher.final();
    // The plaintext is the members' JSON texts back to back, parsed as one JSON array of them (a parse per member
    // was a quarter of what opening a run cost). Each is one JSON object as sealRun wrote it: the tag proves it.
    const list = Buffer.allocUnsafe(plain.length + members.length + 1);
    let from = 0;
    let to = 0;
    for (let m = 0; m < members.length; m += 1) {
      list[to] = m === 0 ? 0x5b : 0x2c;
      to += 1 + plain.copy(list, to + 1, from, from + segmentLengths[m]);
      from += segmentLengths[m];
    }
    list[to] = 0x5d;
    const out = JSON.parse(list.toString('utf8')) as unknown;
    if (!Array.isArray(out) || out.length !== members.length) return null;
    return out as Data[];
  } catch {
    return null;
  }
}

/** The bytes a padded base64 text from `from` decodes to; -1 when its length is not a whole number of quads. */
function base64Bytes(text: string, from: number): number {
  const length = text.length - from;
  if (length % 4 !== 0) return -1;
  const padding = length === 0 ? 0 : text.charCodeAt(text.length - 1) !== 0x3d ? 0 : text.charCodeAt(text.length - 2) === 0x3d ? 2 : 1;
  return (length / 4) * 3 - padding;
}

/**
 * How far a read of consecutive stored events of one stream must reach on either side so that every run it
 * holds a member of is whole: `before` events ahead of the first, `after` events past the last (0: none).
 */
export function runEdges(events: readonly { readonly data: unknown }[]): { readonly before: number; readonly after: number } {
  if (events.length === 0) return { before: 0, after: 0 };
  const first = runMemberOf(events[0].data);
  const last = runMemberOf(events[events.length - 1].data);
  return { before: first?.index ?? 0, after: last === null ? 0 : last.size - 1 - last.index };
}

/**
 * The readable data of consecutive stored events of one stream (`readableEventData` for each), opening each run
 * with one call. Every run a member of which is given must be whole in `events` (`runEdges`): a run cut at
 * either end throws `SealError`, unless `cut` is `erased` — a caller that already read as far as `runEdges`
 * said, and found no more (an edited position claims members the stream does not hold) —, which reads it as
 * erased. A run broken inside `events` (an edited table) reads as erased. With no key, run members read as
 * erased like any sealed event.
 */
export function readableEventsData(
  key: Buffer | null,
  streamId: string,
  events: readonly { readonly type: string; readonly data: unknown; readonly schema: number }[],
  options: { readonly cut?: 'throw' | 'erased' } = {},
): Data[] {
  const out = new Array<Data>(events.length);
  for (let i = 0; i < events.length; ) {
    const event = events[i];
    const member = key === null ? null : runMemberOf(event.data);
    if (member === null) {
      out[i] = readableEventData(key, streamId, event.type, event.data, event.schema);
      i += 1;
      continue;
    }
    const members: { type: string; sealed: string; at: number }[] = [];
    for (let m = member.index === 0 ? 0 : -1; m >= 0 && m < member.size && i + m < events.length; m += 1) {
      const position = runMemberOf(events[i + m].data);
      if (position === null || position.index !== m || position.size !== member.size) break;
      members.push({ type: events[i + m].type, sealed: (events[i + m].data as Data)[SEALED_FIELD] as string, at: position.at });
    }
    // A run the read cut (it begins before the first event or ends past the last) is the caller's to complete; a
    // run broken inside the read (an edited table) reads as erased, and its chain breaks there.
    const cutAtStart = i === 0 && member.index !== 0;
    const cutAtEnd = members.length > 0 && members.length < member.size && i + members.length === events.length;
    if ((cutAtStart || cutAtEnd) && options.cut !== 'erased') throw new SealError(`a read of ${streamId} holding part of a sealed run`);
    const contents = members.length === member.size ? openRun(key as Buffer, streamId, members) : null;
    const count = Math.max(members.length, 1);
    for (let m = 0; m < count; m += 1) {
      const stored = events[i + m];
      out[i + m] = upcastEventData(stored.type, stored.schema, joinContent(stored.data as Data, contents?.[m] ?? erasedContentOf(stored.type), SEALED_FIELD));
    }
    i += count;
  }
  return out;
}

export const isSealed = (data: unknown): data is Data & { readonly sealed: string } =>
  typeof data === 'object' && data !== null && typeof (data as Data)[SEALED_FIELD] === 'string';

/**
 * An event's data as a reader sees it, from its stored form: its content opened with the key (or, with no key
 * left — an erased session —, each content field at its empty value), then upcast from the schema version its
 * metadata names to the current one. Data stored plain (written before content was sealed, or with sealing
 * off) is only upcast.
 */
export function readableEventData(key: Buffer | null, streamId: string, type: string, stored: unknown, schema: number): Data {
  let data = stored as Data;
  if (key !== null && runMemberOf(data) !== null) throw new SealError(`an event of ${streamId} sealed in a run opens only with its run (readableEventsData)`);
  if (isSealed(data)) {
    data = joinContent(data, (key === null ? null : tryOpen(key, streamId, type, data[SEALED_FIELD])) ?? erasedContentOf(type), SEALED_FIELD);
  } else if (isDroppedContent(data)) {
    data = joinContent(data, erasedContentOf(type), DROPPED_CONTENT.field);
  }
  return upcastEventData(type, schema, data);
}

/**
 * The content, or null when it does not open: a ciphertext edited in the table fails its tag. The event then
 * reads as erased; its hash chain breaks at it, which every audit reports.
 */
function tryOpen(key: Buffer, streamId: string, type: string, sealed: string): Data | null {
  try {
    return openContent(key, streamId, type, sealed);
  } catch {
    return null;
  }
}

export { storedSchemaOf };
