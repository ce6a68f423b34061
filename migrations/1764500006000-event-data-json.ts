import type { MigrationInterface, QueryRunner } from 'typeorm';
import { APPEND_FUNCTION_1764500004000 } from './1764500004000-append-function.js';

/** The append function of 1764500004000, replaced; `asJson`: it stores each event's data as the text it was given. */
export function appendFunction(asJson: boolean): string {
  const text = APPEND_FUNCTION_1764500004000.replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION');
  if (!asJson) return text;
  const cast = 't.data::jsonb, ';
  if (text.split(cast).length !== 2) throw new Error(`the append function should hold ${cast} once`);
  return text.replace(cast, 't.data::json, ');
}

/**
 * Event data as `json` (the text as written, checked for syntax) instead of `jsonb`. The writer sends each
 * event's data as canonical JSON, the very text its chain link hashes; stored verbatim, an audit hashes the
 * stored text as it is and never rebuilds it (parse, sort keys, write) to check the chain. Nothing queries
 * inside event data on a hot path (one `->>` in recovery works on json alike), and json is the cheaper of the
 * two to insert and to read back as text (bench/README.md).
 *
 * Rows written before this migration keep jsonb's text form (`{"a": 1}`), which is not the canonical text:
 * an audit sees that the stored text does not hash to the link and checks those rows the slow way (parse
 * and canonicalize), so they verify as before. The type change rewrites the table under an exclusive lock:
 * on a large store, run it in a maintenance window.
 */
export class EventDataJson1764500006000 implements MigrationInterface {
  name = 'EventDataJson1764500006000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events ALTER COLUMN data TYPE json USING data::json`);
    await q.query(appendFunction(true));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(appendFunction(false));
    await q.query(`ALTER TABLE events ALTER COLUMN data TYPE jsonb USING data::jsonb`);
  }
}
