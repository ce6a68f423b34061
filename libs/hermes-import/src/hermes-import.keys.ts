import { createHash } from 'node:crypto';
import { canonicalJson, type MessageRow } from '#domain';
import type { Skipped } from './hermes-import.report.js';

/**
 * Idempotency keys derived from the source, stored as `metadata.importKey` of the events they produced. The
 * natural keys of the contract already make a repeat of a submission (run id), a journal event (run id and
 * seq) and a state row (row id with the same content) a duplicate; these keys cover what has none: the
 * session start, the sidecar rows (by index range and content hash) and the truncation.
 */
export const KEY = {
  session: 'sidecar:session',
  rows: (from: number, to: number, rows: readonly MessageRow[]) => `sidecar:rows:${from}-${to}:${rowsHash(rows.slice(from, to))}`,
  truncation: (keepCount: number, at: number) => `sidecar:truncation:${keepCount}:${at}`,
  pending: (runId: string) => `sidecar:pending:${runId}`,
  compressed: (child: string) => `sidecar:compressed:${child}`,
  stateRows: (first: number, last: number) => `state.db:rows:${first}-${last}`,
  journal: (runId: string, first: number, last: number) => `journal:${runId}:${first}-${last}`,
} as const;

const ROWS_KEY = /^sidecar:rows:(\d+)-(\d+):([0-9a-f]+)$/;

export function rowsHash(rows: readonly MessageRow[]): string {
  return createHash('sha256').update(canonicalJson(rows)).digest('hex').slice(0, 16);
}

export interface SidecarRowsChoice {
  /** Index of the first sidecar row not yet imported; null = import none (the file changed). */
  readonly from: number | null;
  readonly skipped: readonly Skipped[];
}

/**
 * Which sidecar rows a re-run still appends: the rows past those imported before, when the earlier ranges
 * still hold the same rows. A sidecar rewritten since (an edit, an undo) is reported, never merged by guess.
 */
export function sidecarRowsToImport(file: string, rows: readonly MessageRow[], stored: ReadonlySet<string>): SidecarRowsChoice {
  let covered = 0;
  for (const key of stored) {
    const match = ROWS_KEY.exec(key);
    if (match === null) continue;
    const [from, to] = [Number(match[1]), Number(match[2])];
    if (to > rows.length || rowsHash(rows.slice(from, to)) !== match[3]) {
      const reason = `rows ${from}..${to - 1} changed since they were imported; the sidecar rows were not imported again`;
      return { from: null, skipped: [{ item: file, reason }] };
    }
    covered = Math.max(covered, to);
  }
  return { from: covered, skipped: [] };
}
