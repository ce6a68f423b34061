import { decide, type JournalEvent, type SessionEvent } from '#domain';
import type { SessionWriter, WriteOptions, WriteResult } from './session-writer.js';

/**
 * Several journal deliveries of one run, each its own request (a worker's messages read together from one
 * connection), written as one command: one decision, one append, one commit. Each part is answered as it would
 * have been alone, had the parts been applied one after another in order: the events it appended (a seq
 * delivered twice counts for the first part that holds it), the version after them, `duplicate` when it
 * appended none.
 */
export async function recordJournalParts(
  writer: SessionWriter,
  sessionId: string,
  runId: string,
  parts: readonly (readonly JournalEvent[])[],
  options: WriteOptions = {},
): Promise<WriteResult[]> {
  const command = { type: 'RecordJournalEvents' as const, data: { runId, events: parts.flat() } };
  // The decision the write committed: a lost race re-decides, and the last decision is the one appended.
  let decided: readonly SessionEvent[] = [];
  const result = await writer.write(
    sessionId,
    ({ state }) => {
      const decision = decide(command, state);
      decided = decision.events;
      return decision;
    },
    options,
  );
  const partOf = new Map<number, number>();
  parts.forEach((events, part) => events.forEach((event) => partOf.has(event.seq) || partOf.set(event.seq, part)));
  const appended = parts.map(() => 0);
  if (!result.duplicate) {
    for (const event of decided) appended[partOf.get((event.data as JournalEvent).seq)!]! += 1;
  }
  let version = result.version - result.appended;
  return appended.map((count) => {
    version += count;
    return {
      sessionId,
      version,
      appended: count,
      duplicate: count === 0,
      ...(result.durable === false && count > 0 ? { durable: false as const } : {}),
    };
  });
}
