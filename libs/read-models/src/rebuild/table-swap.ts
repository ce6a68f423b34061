import type pg from 'pg';
import type { DatabaseEngine } from '#event-store';

export const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * A fresh, empty copy of `live`'s columns, defaults, constraints and indexes, beside it. On Citus the copy is
 * distributed as the live table is (by stream id, colocated with `streams`): `CREATE TABLE … (LIKE …)` alone
 * makes a plain table on the coordinator.
 */
export async function createShadowTable(client: pg.ClientBase, live: string, next: string, engine: DatabaseEngine): Promise<void> {
  await client.query(`DROP TABLE IF EXISTS ${quoteIdent(next)}`);
  await client.query(`CREATE TABLE ${quoteIdent(next)} (LIKE ${quoteIdent(live)} INCLUDING ALL)`);
  if (engine === 'citus') await client.query(`SELECT create_distributed_table($1, 'stream_id', colocate_with := 'streams')`, [next]);
}

interface IndexShape {
  readonly name: string;
  readonly table: string;
  readonly shape: string;
}

/** An index definition without its own and its table's name: what pairs an index of `next` with one of `live`. */
const shapeOf = (definition: string): string => definition.replace(/^CREATE (UNIQUE )?INDEX \S+ ON \S+ /, 'CREATE $1INDEX ON _ ');

async function indexesOf(client: pg.ClientBase, tables: readonly string[]): Promise<IndexShape[]> {
  const result = await client.query(
    `SELECT c.relname AS name, t.relname AS table, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
      WHERE t.oid = ANY(ARRAY[$1::regclass, $2::regclass]::oid[])`,
    [tables[0], tables[1]],
  );
  return result.rows.map((row) => ({ name: row.name, table: row.table, shape: shapeOf(row.definition) }));
}

/**
 * Inside the caller's transaction: `live` → `<live>_old`, `next` → `live`, drop the old table, and give the
 * new table's indexes (and so its primary key constraint) the old names, so the schema reads as the
 * migrations wrote it and the next rebuild's `LIKE … INCLUDING ALL` finds free names again.
 */
export async function swapTables(client: pg.ClientBase, live: string, next: string): Promise<void> {
  const indexes = await indexesOf(client, [live, next]);
  const old = `${live}_old`;
  await client.query(`DROP TABLE IF EXISTS ${quoteIdent(old)}`);
  await client.query(`ALTER TABLE ${quoteIdent(live)} RENAME TO ${quoteIdent(old)}`);
  await client.query(`ALTER TABLE ${quoteIdent(next)} RENAME TO ${quoteIdent(live)}`);
  await client.query(`DROP TABLE ${quoteIdent(old)}`);
  const oldNames = new Map(indexes.filter((index) => index.table === live).map((index) => [index.shape, index.name]));
  for (const index of indexes.filter((candidate) => candidate.table === next)) {
    const name = oldNames.get(index.shape);
    if (name !== undefined && name !== index.name) {
      await client.query(`ALTER INDEX ${quoteIdent(index.name)} RENAME TO ${quoteIdent(name)}`);
    }
  }
}
