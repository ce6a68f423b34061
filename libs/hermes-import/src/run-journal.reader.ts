import type { JournalEvent } from '#domain';
import type { Skipped } from './hermes-import.report.js';

/** Ids of a journal path `<sessionId>/<runId>.jsonl` (reference §1.4: `^[A-Za-z0-9_.-]+$`). */
export const JOURNAL_PATH = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)\.jsonl$/;

export interface ParsedJournal {
  readonly events: readonly JournalEvent[];
  /** One entry per malformed line: counted and left out, never fatal. */
  readonly skipped: readonly Skipped[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function problemOf(line: unknown): string | null {
  if (!isRecord(line)) return 'not a JSON object';
  if (typeof line['seq'] !== 'number' || !Number.isSafeInteger(line['seq']) || line['seq'] < 1) return 'seq is not an integer ≥ 1';
  const name = line['event'] ?? line['type'];
  if (typeof name !== 'string' || name === '') return 'event is missing';
  if (line['payload'] !== undefined && !isRecord(line['payload'])) return 'payload is not an object';
  if (typeof line['created_at'] !== 'number' || !Number.isFinite(line['created_at'])) return 'created_at is not a number';
  return null;
}

/**
 * One run journal file (JSONL, one SSE frame a line, §1.4) as JournalEvents, the payload verbatim with its
 * snake_case keys. Blank lines are ignored; a line that is not a journal event is reported and skipped.
 */
export function parseRunJournal(item: string, text: string): ParsedJournal {
  const events: JournalEvent[] = [];
  const skipped: Skipped[] = [];
  text.split('\n').forEach((source, index) => {
    if (source.trim() === '') return;
    let line: unknown;
    try {
      line = JSON.parse(source);
    } catch {
      skipped.push({ item: `${item} line ${index + 1}`, reason: 'malformed line: not JSON' });
      return;
    }
    const problem = problemOf(line);
    if (problem !== null) {
      skipped.push({ item: `${item} line ${index + 1}`, reason: `malformed line: ${problem}` });
      return;
    }
    const event = line as Record<string, unknown>;
    events.push({
      seq: event['seq'] as number,
      event: (event['event'] ?? event['type']) as string,
      payload: (event['payload'] as Record<string, unknown> | undefined) ?? {},
      createdAt: event['created_at'] as number,
    });
  });
  return { events, skipped };
}
