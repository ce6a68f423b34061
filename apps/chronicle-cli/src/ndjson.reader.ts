import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { fromSessionStreamId } from '#domain';

/** One event line of an import file, validated (the shape `chronicle export` writes). */
export interface ImportEvent {
  readonly line: number;
  /** Bytes of the line (with its newline): progress estimates the file's event count from them. */
  readonly bytes: number;
  readonly streamId: string;
  readonly version: number;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly hash: string;
  /** The session's data key (base64), on the first line of its stream in an export of sealed content. */
  readonly dataKey?: string;
}

export class BadLine extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'BadLine';
  }
}

const HASH = /^[0-9a-f]{64}$/;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Parses and checks one line; throws BadLine naming the line and the field. */
export function parseEventLine(text: string, line: number, bytes = Buffer.byteLength(text) + 1): ImportEvent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new BadLine(line, `not JSON (${(error as Error).message})`);
  }
  if (!isObject(value)) throw new BadLine(line, 'not a JSON object');
  const { streamId, sessionId, version, type, data, metadata, hash, dataKey } = value;
  if (typeof streamId !== 'string' || streamId === '') throw new BadLine(line, 'streamId must be a non-empty string');
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) {
    throw new BadLine(line, `version must be a positive integer (stream ${streamId})`);
  }
  if (typeof type !== 'string' || type === '') throw new BadLine(line, `type must be a non-empty string (stream ${streamId})`);
  if (data === undefined) throw new BadLine(line, `data is missing (stream ${streamId} version ${version})`);
  if (metadata !== undefined && !isObject(metadata)) throw new BadLine(line, `metadata must be an object (stream ${streamId})`);
  if (typeof hash !== 'string' || !HASH.test(hash)) throw new BadLine(line, `hash must be 64 hex digits (stream ${streamId} version ${version})`);
  if (sessionId !== undefined && sessionId !== fromSessionStreamId(streamId)) {
    throw new BadLine(line, `sessionId ${JSON.stringify(sessionId)} does not match streamId ${streamId}`);
  }
  if (dataKey !== undefined && (typeof dataKey !== 'string' || Buffer.from(dataKey, 'base64').length !== 32)) {
    throw new BadLine(line, `dataKey must be 32 bytes in base64 (stream ${streamId})`);
  }
  return { line, bytes, streamId, version, type, data, metadata: metadata ?? {}, hash, ...(dataKey === undefined ? {} : { dataKey }) };
}

/** The file's events one at a time (blank lines skipped): constant memory on any file size. */
export async function* readEvents(path: string): AsyncGenerator<ImportEvent> {
  const input = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      if (text.trim() === '') continue;
      yield parseEventLine(text, line, Buffer.byteLength(text) + 1);
    }
  } finally {
    lines.close();
    input.destroy();
  }
}
