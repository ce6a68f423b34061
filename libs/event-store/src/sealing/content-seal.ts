import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import { DROPPED_CONTENT, erasedContentOf, isDroppedContent, joinContent, splitContent, storedSchemaOf, upcastEventData } from '#domain/replay';
import { UnstorableTextError, unstorable } from '../storable-text.js';

/**
 * An event's content sealed with its session's data key: AES-256-GCM, a fresh 96-bit IV per event, the stream
 * id and event type as additional data (a sealed content moved to another session or event does not open).
 * The stored data is the event's plain fields plus `sealed: "1:" + base64(iv ‖ tag ‖ ciphertext)`, the
 * ciphertext being the JSON of its content fields (`splitContent`). The chain hashes that stored form, so it
 * verifies with or without the key.
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

const aadOf = (streamId: string, type: string): Buffer => Buffer.from(`${streamId}\u0000${type}`);

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
export function sealText(key: Buffer, streamId: string, type: string, text: string): string {
  if (ivAt >= ivPool.length) {
    randomFillSync(ivPool);
    ivAt = 0;
  }
  const iv = ivPool.subarray(ivAt, ivAt + IV_BYTES);
  ivAt += IV_BYTES;
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
  return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
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
  const sealed = (JSON.parse(stored) as Data)[SEALED_FIELD];
  if (typeof sealed !== 'string' || key === null) return null;
  return openText(key, streamId, 'snapshot', sealed);
}

export class SealError extends Error {
  override readonly name = 'SealError';
}

/** An event's data as stored: its content sealed when it has any (an event without content is stored as it is). */
export function sealEventData(key: Buffer, streamId: string, type: string, data: Data): Data {
  const { plain, content } = splitContent(type, data);
  if (content === null) return data;
  return { ...plain, [SEALED_FIELD]: sealContent(key, streamId, type, content) };
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
  if (isSealed(data)) {
    const { [SEALED_FIELD]: sealed, ...plain } = data;
    data = joinContent(plain, (key === null ? null : tryOpen(key, streamId, type, sealed)) ?? erasedContentOf(type));
  } else if (isDroppedContent(data)) {
    const { [DROPPED_CONTENT.field]: _marker, ...plain } = data;
    data = joinContent(plain, erasedContentOf(type));
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
