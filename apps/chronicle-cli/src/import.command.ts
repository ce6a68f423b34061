import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ConcurrencyError, type ReadableStoredEvent, readableEventsData, runEdges, runMemberOf, SessionErasedError, storedSchemaOf } from '#event-store';
import { SessionIndexProjector } from '#read-models';
import { SessionWriter } from '#session-commands';
import { CliError, EXIT, errorMessage, type CliIo, writeLine } from './cli-io.js';
import type { CliDatabase } from './database.connector.js';
import { verifyChains } from './import-chain.verifier.js';
import { BadLine, type ImportEvent, readEvents } from './ndjson.reader.js';
import { createProgress } from './progress.reporter.js';

const BATCH = 500;

async function fileSize(io: CliIo, file: string): Promise<{ path: string; size: number }> {
  const path = resolve(io.cwd ?? process.cwd(), file);
  const info = await stat(path).catch((error: unknown) => {
    throw new CliError(EXIT.usage, `chronicle: cannot read ${file}: ${errorMessage(error)}`);
  });
  if (!info.isFile()) throw new CliError(EXIT.usage, `chronicle: ${file} is not a file`);
  return { path, size: info.size };
}

/**
 * `chronicle import FILE`: verify every chain of the file first (nothing is written when one is broken or
 * conflicts with a stored event), then append what the database lacks with expectedVersion, so the stored
 * hashes are the file's; each goes through the service's write path (`SessionWriter.appendRecorded`), so the
 * session's inline summary row is written with it.
 * Importing the same file twice appends nothing. The session index catches up after.
 */
export async function importCommand(db: CliDatabase, io: CliIo, options: { file: string }): Promise<number> {
  const { path, size } = await fileSize(io, options.file);
  const base = { stream: io.stderr, tty: io.progressTty, unit: 'events', now: io.now };
  const verifying = createProgress({ ...base, label: 'verify' });
  let bytes = 0;
  let verification;
  /** Each stream's data key as the file carries it (on the stream's first line). */
  const fileKeys = new Map<string, string>();
  try {
    verification = await verifyChains(db.store, readEvents(path), (event) => {
      if (event.dataKey !== undefined && !fileKeys.has(event.streamId)) fileKeys.set(event.streamId, event.dataKey);
      bytes += event.bytes;
      verifying.tick(1, Math.max(verifying.count + 1, Math.round((size * (verifying.count + 1)) / Math.max(bytes, 1))));
    });
  } catch (error) {
    if (error instanceof BadLine) throw new CliError(EXIT.mismatch, `chronicle: refusing ${options.file}: ${error.message}; nothing was imported`);
    throw error;
  }
  verifying.done(`in ${verification.plans.size} stream(s)`);
  // The keys too, before anything is written: a store that keeps content plain, a session this store erased, or
  // one whose key here is another refuses the whole file, not the streams after the ones already written.
  if (verification.problems.length === 0) verification.problems.push(...(await keyProblems(db, fileKeys)));
  if (verification.problems.length > 0) {
    const list = verification.problems.map((problem) => `  ${problem}`).join('\n');
    throw new CliError(EXIT.mismatch, `chronicle: refusing ${options.file}: nothing was imported.\n${list}`);
  }
  const importing = createProgress({ ...base, label: 'import', total: verification.toAppend });
  // The file's stored forms are written as they are (their hashes are the file's); the fold reads them opened.
  const writer = new SessionWriter(db.storedForms, db.views);
  const keys = new Map<string, Buffer>();
  let batch: ImportEvent[] = [];
  /** A stream's sealed run begun in the file before another stream's lines: held until its stream goes on. */
  const held = new Map<string, ImportEvent[]>();
  const flush = async () => {
    if (batch.length === 0) return;
    // A batch that ends inside a run (the file goes on with another stream) holds the run back: a run opens whole.
    const open = runMemberOf(batch[batch.length - 1].data);
    if (open !== null && open.index < open.size - 1) {
      const from = Math.max(0, batch.length - (open.index + 1));
      held.set(batch[0].streamId, batch.slice(from));
      batch = batch.slice(0, from);
      if (batch.length === 0) return;
    }
    const { streamId } = batch[0];
    const last = batch[batch.length - 1];
    try {
      const events = batch.map(({ type, data, metadata }) => ({ type, data, metadata }));
      const key = keys.get(streamId) ?? (await db.keyring?.keyFor(streamId))?.key ?? null;
      const readable = await readableBatch(db, key, streamId, batch[0].version, events);
      const result = await writer.appendRecorded(streamId, events, batch[0].version - 1, readable, key);
      if (result.lastHash !== last.hash) {
        throw new CliError(EXIT.mismatch, `chronicle: stream ${streamId} version ${last.version} was stored with hash ${result.lastHash}, the file has ${last.hash}`);
      }
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
      throw new CliError(EXIT.mismatch, `chronicle: stream ${streamId} was written to during the import (${error.message}); run the import again, it skips what is stored`);
    }
    importing.tick(batch.length);
    batch = [];
  };
  for await (const event of readEvents(path)) {
    if (event.dataKey !== undefined && !keys.has(event.streamId)) keys.set(event.streamId, await adoptKey(db, event.streamId, event.dataKey));
    if (event.version <= (verification.plans.get(event.streamId)?.storedVersion ?? 0)) continue;
    // A batch ends between streams, or past BATCH events where no sealed run goes on (a run opens whole).
    if (batch.length > 0 && (batch[0].streamId !== event.streamId || (batch.length >= BATCH && runEdges(batch.slice(-1)).after === 0))) await flush();
    if (batch.length === 0) {
      batch = held.get(event.streamId) ?? [];
      held.delete(event.streamId);
    }
    batch.push(event);
  }
  await flush();
  // The verification refused a file that ends inside a run: nothing can be left held.
  if (held.size > 0) throw new Error(`import: a sealed run of ${[...held.keys()].join(', ')} left open after the file`);
  importing.done();
  if (importing.count > 0) await new SessionIndexProjector(db.pool, db.store, db.views, { keys: db.keyring }).catchUp();
  const skipped = verification.events - importing.count;
  await writeLine(io.stdout, `imported ${importing.count} event(s) of ${verification.plans.size} stream(s); ${skipped} already stored`);
  return EXIT.ok;
}

/**
 * A batch's events as the fold reads them: opened with the key. A batch that begins inside a sealed run (the
 * run's first members are stored already: an earlier batch, or an earlier import) opens with them, read back.
 */
async function readableBatch<E extends { readonly type: string; readonly data: unknown; readonly metadata?: unknown }>(
  db: CliDatabase,
  key: Buffer | null,
  streamId: string,
  firstVersion: number,
  events: readonly E[],
): Promise<E[]> {
  const stored = events.map((e) => ({ type: e.type, data: e.data, schema: storedSchemaOf(e.metadata) }));
  const { before } = key === null ? { before: 0 } : runEdges(stored);
  const ahead = before === 0 ? [] : await db.storedForms.readStream(streamId, { from: firstVersion - before, to: firstVersion - 1 });
  // The stored forms as the table holds them (`storedData`: this store reads with no key, so `data` is opened).
  const aheadStored = ahead.map((e) => ({ type: e.type, data: (e as ReadableStoredEvent).storedData ?? e.data, schema: storedSchemaOf(e.metadata) }));
  const data = readableEventsData(key, streamId, [...aheadStored, ...stored]);
  return events.map((e, i) => ({ ...e, data: data[ahead.length + i] }));
}

/** Why the file's data keys cannot be taken by this store, per stream (none: they can). */
async function keyProblems(db: CliDatabase, fileKeys: ReadonlyMap<string, string>): Promise<string[]> {
  if (fileKeys.size === 0) return [];
  if (db.keyring === null) {
    const first = fileKeys.keys().next().value as string;
    return [`the file holds sealed content and its keys (${fileKeys.size} stream(s), ${first} first), and this store keeps content plain (CHRONICLE_ENCRYPTION=off): turn encryption on to import it`];
  }
  const problems: string[] = [];
  for (const [streamId, dataKey] of fileKeys) {
    const known = await db.keyring.keyState(streamId);
    if (known === 'destroyed') problems.push(`${streamId} was erased in this store: its content is not imported again`);
    else if (known !== null && !known.key.equals(Buffer.from(dataKey, 'base64'))) problems.push(`${streamId} already has a data key other than the file's`);
  }
  return problems;
}

/** A session's data key from the file, kept in the key store (refused when this store holds another, or erased it). */
async function adoptKey(db: CliDatabase, streamId: string, dataKey: string): Promise<Buffer> {
  const key = Buffer.from(dataKey, 'base64');
  if (db.keyring === null) {
    throw new CliError(EXIT.usage, `chronicle: the file holds sealed content of ${streamId} and its key, and this store keeps content plain (CHRONICLE_ENCRYPTION=off): turn encryption on to import it`);
  }
  try {
    return (await db.keyring.adopt(streamId, key)).key;
  } catch (error) {
    if (error instanceof SessionErasedError) throw new CliError(EXIT.mismatch, `chronicle: ${streamId} was erased in this store: its content is not imported again`);
    throw new CliError(EXIT.mismatch, `chronicle: ${errorMessage(error)}`);
  }
}
