import type { MigrationInterface, QueryRunner } from 'typeorm';
import { appendFunction } from './1764500006000-event-data-json.js';

/**
 * The append on a Citus cluster: one call per node, delegated to the worker that holds every stream of the call
 * (`create_distributed_function` routes it by `p_route`, a stream of the call), with the checks and the hash
 * chain of `chronicle_append_batch`. It writes the local shard tables itself (`shard_name`), with no statement
 * planned by Citus: through the distributed tables, each inner statement's Citus planning costs about four
 * times the whole append on one server (bench/README.md). Citus's own protection is kept: the call takes the
 * lock Citus's executor takes before writing a shard (`lock_shard_metadata`, share mode, on each shard group of
 * the call in shard order), so a shard move or split waits for it to commit, and after the lock it refuses a
 * stream whose shard is not on this node (SQLSTATE CHR01: the store looks the stream up again and resends).
 *
 * Each event takes this node's transaction id and origin (its Citus group id): the readers' fence is per
 * origin (libs/event-store/src/log-cursor.ts). A write to another node's stream would take this node's
 * transaction id and commit there by two-phase commit after this node's own transaction ended, behind a fence
 * that already passed it: hence the refusal rather than a remote write.
 *
 * The routed statements are the inline read models (`InlineProjection.routed`): each runs once per written
 * append, `$1` the stream id, `$2` the version it reached, `$3` its value (a JSON null skips it); `%s` in its
 * text, when it names a table, is that table's local shard.
 */
export const ROUTED_APPEND_FUNCTION = `
      CREATE FUNCTION chronicle_append_routed(
        p_route text,
        p_streams text[], p_expected bigint[], p_counts int[],
        p_types text[], p_data text[], p_meta text[],
        p_key_counts int[], p_keys text[],
        p_routed_tables text[], p_routed_sql text[], p_routed_values jsonb)
      RETURNS TABLE (item int, outcome text, version bigint, last_hash text, positions bigint[])
      LANGUAGE plpgsql AS $fn$
      DECLARE
        e int := 0;        -- events of earlier items
        k int := 0;        -- keys of earlier items
        n int;
        cur_v bigint;
        cur_h text;
        found_v bigint;
        item_keys text[];
        versions bigint[];
        hashes text[];
        taken boolean;
        v jsonb;
        s text;
        s_streams text;
        s_events text;
        s_keys text;
        node_origin bigint;
        position_sequence text := pg_get_serial_sequence('events', 'global_position');
        prepared text;     -- a statement prepared once per session (marked by a setting of the same name)
        shard bigint;
      BEGIN
        -- The call's shard groups, locked (share mode, in shard order) and then each checked to be on this node.
        SELECT l.groupid INTO node_origin FROM pg_dist_local_group l;
        IF EXISTS (
          SELECT 1 FROM (SELECT lock_shard_metadata(5, array_agg(g.shard ORDER BY g.shard)) AS locked, array_agg(g.shard) AS shards
                           FROM (SELECT DISTINCT get_shard_id_for_distribution_column('streams', x) AS shard FROM unnest(p_streams) x) g) c,
                        unnest(c.shards) AS g(shard)
           WHERE NOT EXISTS (SELECT 1 FROM pg_dist_placement p WHERE p.shardid = g.shard AND p.groupid = node_origin)) THEN
          RAISE EXCEPTION 'a stream of this append is not on this node' USING ERRCODE = 'CHR01';
        END IF;
        FOR i IN 1 .. coalesce(array_length(p_streams, 1), 0) LOOP
          s := p_streams[i];
          n := p_counts[i];
          item_keys := p_keys[k + 1 : k + p_key_counts[i]];
          k := k + p_key_counts[i];
          item := i;
          positions := NULL;
          last_hash := NULL;
          s_streams := shard_name('streams'::regclass, get_shard_id_for_distribution_column('streams', s));
          s_events := shard_name('events'::regclass, get_shard_id_for_distribution_column('events', s));
          found_v := NULL;
          cur_v := NULL;

          IF cardinality(item_keys) = 0 THEN
            -- An existing stream without keys (nearly every append): one statement locks its head, checks it,
            -- chains, writes the events and moves the head. Prepared once per shard and session, so its plan is
            -- made once (planning it on every call cost more than running it).
            prepared := 'chronicle_append_' || get_shard_id_for_distribution_column('streams', s);
            IF current_setting('chronicle.' || prepared, true) IS NULL THEN
              IF NOT EXISTS (SELECT 1 FROM pg_prepared_statements ps WHERE ps.name = prepared) THEN
                EXECUTE format(
                  'PREPARE %4$I(text, text[], text[], text[], bigint, bigint) AS
                   WITH head AS MATERIALIZED (SELECT t.version, t.last_hash FROM %1$s t WHERE t.stream_id = $1 FOR UPDATE),
                        chain AS MATERIALIZED (
                          SELECT c.versions, c.hashes FROM head, chronicle_chain_links(head.last_hash, head.version, $2, $3) c
                           WHERE $5 IS NULL OR $5 = head.version),
                        ins AS (
                          INSERT INTO %2$s (global_position, stream_id, version, type, data, metadata, hash, origin)
                          SELECT nextval(%3$L), $1, x.v, x.type, x.data::json, x.meta::jsonb, x.h, $6
                            FROM chain, unnest(chain.versions, $2, $3, $4, chain.hashes) AS x(v, type, data, meta, h)
                          RETURNING version AS v, global_position AS gp),
                        moved AS (
                          UPDATE %1$s t SET version = chain.versions[cardinality(chain.versions)],
                                            last_hash = chain.hashes[cardinality(chain.hashes)], updated_at = now()
                            FROM chain WHERE t.stream_id = $1
                          RETURNING t.version, t.last_hash)
                   SELECT (SELECT head.version FROM head), (SELECT moved.version FROM moved), (SELECT moved.last_hash FROM moved),
                          (SELECT array_agg(ins.gp ORDER BY ins.v) FROM ins)',
                  s_streams, s_events, position_sequence, prepared);
              END IF;
              PERFORM set_config('chronicle.' || prepared, 'prepared', false);
            END IF;
            EXECUTE format('EXECUTE %I(%L, %L, %L, %L, %L, %L)', prepared, s, p_types[e + 1 : e + n], p_data[e + 1 : e + n],
                           p_meta[e + 1 : e + n], p_expected[i], node_origin)
              INTO found_v, cur_v, cur_h, positions;
            IF found_v IS NOT NULL AND cur_v IS NULL THEN
              outcome := 'conflict'; version := found_v; RETURN NEXT; e := e + n; CONTINUE;
            END IF;
          END IF;

          IF cur_v IS NULL THEN
            -- A new stream, or an append with idempotency keys: step by step.
            EXECUTE format('SELECT t.version, t.last_hash FROM %s t WHERE t.stream_id = $1 FOR UPDATE', s_streams) INTO cur_v, cur_h USING s;
            IF cur_v IS NULL THEN
              IF p_expected[i] IS NOT NULL AND p_expected[i] <> 0 THEN
                outcome := 'conflict'; version := 0; RETURN NEXT; e := e + n; CONTINUE;
              END IF;
              IF cardinality(item_keys) > (SELECT count(DISTINCT x) FROM unnest(item_keys) x) THEN
                outcome := 'duplicate'; version := 0; RETURN NEXT; e := e + n; CONTINUE;
              END IF;
              -- A concurrent creator of the same stream makes this wait for its commit, then do nothing.
              EXECUTE format('INSERT INTO %s (stream_id, version, last_hash) VALUES ($1, 0, $2) ON CONFLICT DO NOTHING', s_streams) USING s, '';
              EXECUTE format('SELECT t.version, t.last_hash FROM %s t WHERE t.stream_id = $1 FOR UPDATE', s_streams) INTO cur_v, cur_h USING s;
            END IF;
            IF p_expected[i] IS NOT NULL AND p_expected[i] <> cur_v THEN
              outcome := 'conflict'; version := cur_v; RETURN NEXT; e := e + n; CONTINUE;
            END IF;
            IF cardinality(item_keys) > 0 THEN
              s_keys := shard_name('idempotency_keys'::regclass, get_shard_id_for_distribution_column('idempotency_keys', s));
              EXECUTE format('SELECT EXISTS (SELECT 1 FROM %s t WHERE t.stream_id = $1 AND t.key = ANY ($2))', s_keys) INTO taken USING s, item_keys;
              IF taken OR cardinality(item_keys) > (SELECT count(DISTINCT x) FROM unnest(item_keys) x) THEN
                outcome := 'duplicate'; version := cur_v; RETURN NEXT; e := e + n; CONTINUE;
              END IF;
            END IF;
            SELECT c.versions, c.hashes INTO versions, hashes FROM chronicle_chain_links(cur_h, cur_v, p_types[e + 1 : e + n], p_data[e + 1 : e + n]) c;
            cur_v := cur_v + n;
            cur_h := hashes[n];
            EXECUTE format(
              'WITH ins AS (
                 INSERT INTO %s (global_position, stream_id, version, type, data, metadata, hash, origin)
                 SELECT nextval(%L), $1, t.v, t.type, t.data::json, t.meta::jsonb, t.h, $7
                   FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[]) AS t(v, type, data, meta, h)
                 RETURNING version AS v, global_position AS gp)
               SELECT array_agg(ins.gp ORDER BY ins.v) FROM ins', s_events, position_sequence)
              INTO positions
              USING s, versions, p_types[e + 1 : e + n], p_data[e + 1 : e + n], p_meta[e + 1 : e + n], hashes, node_origin;
            EXECUTE format('UPDATE %s SET version = $2, last_hash = $3, updated_at = now() WHERE stream_id = $1', s_streams) USING s, cur_v, cur_h;
            IF cardinality(item_keys) > 0 THEN
              EXECUTE format('INSERT INTO %s (stream_id, key, version) SELECT $1, x, $2 FROM unnest($3::text[]) x', s_keys) USING s, cur_v, item_keys;
            END IF;
          END IF;
          e := e + n;

          FOR r IN 1 .. coalesce(array_length(p_routed_sql, 1), 0) LOOP
            v := p_routed_values -> (i - 1) -> (r - 1);
            IF v IS NOT NULL AND jsonb_typeof(v) <> 'null' THEN
              -- Prepared once per statement text, shard and session, as the append's own statement.
              shard := CASE WHEN p_routed_tables[r] IS NULL THEN NULL
                            ELSE get_shard_id_for_distribution_column(p_routed_tables[r], s) END;
              prepared := 'chronicle_routed_' || left(md5(p_routed_sql[r]), 16) || coalesce('_' || shard, '');
              IF current_setting('chronicle.' || prepared, true) IS NULL THEN
                IF NOT EXISTS (SELECT 1 FROM pg_prepared_statements ps WHERE ps.name = prepared) THEN
                  EXECUTE format('PREPARE %I(text, bigint, json) AS ', prepared)
                    || CASE WHEN shard IS NULL THEN p_routed_sql[r] ELSE format(p_routed_sql[r], shard_name(p_routed_tables[r]::regclass, shard)) END;
                END IF;
                PERFORM set_config('chronicle.' || prepared, 'prepared', false);
              END IF;
              EXECUTE format('EXECUTE %I(%L, %L, %L)', prepared, s, cur_v, v);
            END IF;
          END LOOP;
          outcome := 'ok'; version := cur_v; last_hash := cur_h;
          RETURN NEXT;
        END LOOP;
      END
      $fn$`;

/**
 * The chain link, sha256(previous hash || '{"data":' || canonical data || ',"type":' || type || ',"version":' ||
 * version || '}'), of each event after a head: the one SQL home of the rule `chainLink` states in TypeScript,
 * for the append function of one server and the routed append of a cluster.
 */
const CHAIN_LINKS_FUNCTION = `
      CREATE FUNCTION chronicle_chain_links(p_hash text, p_version bigint, p_types text[], p_data text[],
                                            OUT versions bigint[], OUT hashes text[])
      LANGUAGE plpgsql IMMUTABLE AS $fn$
      BEGIN
        versions := '{}';
        hashes := '{}';
        FOR j IN 1 .. coalesce(array_length(p_types, 1), 0) LOOP
          p_version := p_version + 1;
          p_hash := encode(sha256(convert_to(
            p_hash || '{"data":' || p_data[j] || ',"type":' || to_json(p_types[j])::text || ',"version":' || p_version || '}', 'UTF8')), 'hex');
          versions := versions || p_version;
          hashes := hashes || p_hash;
        END LOOP;
      END
      $fn$`;

/** The append function of 1764500006000 with its chain loop replaced by `chronicle_chain_links`. */
function appendFunctionWithChainLinks(): string {
  const text = appendFunction(true);
  const loop = / {10}versions := '\{\}';\n {10}hashes := '\{\}';\n {10}FOR j IN 1 \.\. n LOOP[\s\S]*?END LOOP;\n/;
  if (!loop.test(text)) throw new Error('the append function should hold its chain loop once');
  return text.replace(loop, `${CHAIN_CALL_TEXT}`);
}

const CHAIN_CALL_TEXT = `          SELECT c.versions, c.hashes INTO versions, hashes FROM chronicle_chain_links(cur_h, cur_v, p_types[e + 1 : e + n], p_data[e + 1 : e + n]) c;
          cur_v := cur_v + n;
          cur_h := hashes[n];
`;

const ROUTED_APPEND_SIGNATURE =
  'chronicle_append_routed(text, text[], bigint[], int[], text[], text[], text[], int[], text[], text[], text[], jsonb)';

/** Per-session tables, distributed by the stream id and colocated with `streams`: a session's rows share one shard. */
const SESSION_TABLES = ['events', 'idempotency_keys', 'session_summaries', 'session_snapshots', 'session_index'];
/** Small global tables, copied to every node. */
const REFERENCE_TABLES = ['projection_checkpoints', 'host_boots', 'typeorm_migrations'];

/**
 * Scale-out (Citus), and the shapes that make it possible on every engine.
 *
 * On every engine:
 * - `events.origin`: which node's transaction ids the row's `transaction_id` counts in. One server writes 0; a
 *   Citus node writes its group id (`pg_dist_local_group`; 0 is the coordinator, as one server is). The gap-safe read (`readPositions`) keeps one position per origin,
 *   fenced by that node's own oldest running transaction; `events_read_all` becomes (origin, transaction_id,
 *   global_position).
 * - `projection_checkpoints.cursor`: a projector's position per origin (jsonb), replacing the single
 *   (transaction_id, global_position) pair. An existing pair becomes origin 0's position.
 * - `session_index.stream_id`: the row's key is the session's stream id, so on Citus it sits on the stream's shard.
 * - `session_summaries.pending` and `parent_session_id`: what the recovery supervisor looks up, written inline by
 *   the append, so it never depends on the async index's lag (partial indexes; both rarely change, so the
 *   summary's update per append stays a heap-only update).
 *
 * With the `citus` extension (run against the coordinator): every per-session table distributed by stream id and
 * colocated with `streams`, the liveness tables by run id, the small global ones as reference tables, and the
 * routed append function distributed by its stream argument. `events.origin` loses its default there: only the
 * routed append writes events, each with its node's origin.
 */
export class ScaleOut1764500007000 implements MigrationInterface {
  name = 'ScaleOut1764500007000';

  async up(q: QueryRunner): Promise<void> {
    const citus = await isCitus(q);
    if (citus) {
      const [{ coordinator }] = await q.query(`SELECT citus_is_coordinator() AS coordinator`);
      if (!coordinator) throw new Error('Citus: run the migrations against the coordinator (DATABASE_URL of the coordinator node)');
    }
    await q.query(`ALTER TABLE events ADD COLUMN origin bigint NOT NULL DEFAULT 0`);
    await q.query(`DROP INDEX events_read_all`);
    await q.query(`CREATE INDEX events_read_all ON events (origin, transaction_id, global_position)`);

    await q.query(`ALTER TABLE projection_checkpoints ADD COLUMN cursor jsonb NOT NULL DEFAULT '{}'::jsonb`);
    await q.query(`
      UPDATE projection_checkpoints
         SET cursor = jsonb_build_object('0', jsonb_build_object('transactionId', transaction_id::text, 'globalPosition', global_position::text))
       WHERE global_position > 0`);
    await q.query(`ALTER TABLE projection_checkpoints DROP COLUMN transaction_id, DROP COLUMN global_position`);

    await q.query(`ALTER TABLE session_index ADD COLUMN stream_id text`);
    await q.query(`UPDATE session_index SET stream_id = 'session-' || session_id`);
    await q.query(`ALTER TABLE session_index ALTER COLUMN stream_id SET NOT NULL`);
    await q.query(`ALTER TABLE session_index DROP CONSTRAINT session_index_pkey`);
    await q.query(`ALTER TABLE session_index ADD CONSTRAINT session_index_pkey PRIMARY KEY (stream_id)`);

    await q.query(`ALTER TABLE session_summaries ADD COLUMN pending boolean NOT NULL DEFAULT false, ADD COLUMN parent_session_id text`);
    await q.query(`
      UPDATE session_summaries
         SET pending = coalesce(json_typeof(data::json -> 'pendingTurn') = 'object', false),
             parent_session_id = data ->> 'parentSessionId'`);
    await q.query(`CREATE INDEX session_summaries_pending ON session_summaries (stream_id) WHERE pending`);
    await q.query(`CREATE INDEX session_summaries_parent ON session_summaries (parent_session_id) WHERE parent_session_id IS NOT NULL`);

    await q.query(CHAIN_LINKS_FUNCTION);
    await q.query(appendFunctionWithChainLinks());

    if (citus) await distribute(q);
  }

  async down(q: QueryRunner): Promise<void> {
    // A cluster's log has per-node positions and checkpoints with no one-server form, and Citus cannot take the
    // identity column of `events` back to a local table: refused whole, before anything changes.
    if (await isCitus(q)) throw new Error(SCALE_OUT_IRREVERSIBLE_ON_CITUS);
    await q.query(appendFunction(true));
    await q.query(`DROP FUNCTION chronicle_chain_links(text, bigint, text[], text[])`);
    await q.query(`DROP INDEX session_summaries_parent`);
    await q.query(`DROP INDEX session_summaries_pending`);
    await q.query(`ALTER TABLE session_summaries DROP COLUMN parent_session_id, DROP COLUMN pending`);
    await q.query(`ALTER TABLE session_index DROP CONSTRAINT session_index_pkey`);
    await q.query(`ALTER TABLE session_index ADD CONSTRAINT session_index_pkey PRIMARY KEY (session_id)`);
    await q.query(`ALTER TABLE session_index DROP COLUMN stream_id`);
    await q.query(`
      ALTER TABLE projection_checkpoints
        ADD COLUMN transaction_id xid8 NOT NULL DEFAULT '0'::xid8,
        ADD COLUMN global_position bigint NOT NULL DEFAULT 0`);
    // Only a one-server position converts back; a cluster's per-node positions have no single pair.
    await q.query(`
      UPDATE projection_checkpoints
         SET transaction_id = (cursor -> '0' ->> 'transactionId')::xid8, global_position = (cursor -> '0' ->> 'globalPosition')::bigint
       WHERE cursor ? '0'`);
    await q.query(`ALTER TABLE projection_checkpoints DROP COLUMN cursor`);
    await q.query(`DROP INDEX events_read_all`);
    await q.query(`CREATE INDEX events_read_all ON events (transaction_id, global_position)`);
    await q.query(`ALTER TABLE events DROP COLUMN origin`);
  }
}

async function isCitus(q: QueryRunner): Promise<boolean> {
  const rows: unknown[] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
  return rows.length > 0;
}

async function distribute(q: QueryRunner): Promise<void> {
  // DDL and distribution in one transaction: Citus must not open parallel connections per shard before it.
  await q.query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
  await q.query(`SELECT create_distributed_table('streams', 'stream_id')`);
  for (const table of SESSION_TABLES) {
    const column = 'stream_id';
    await q.query(`SELECT create_distributed_table($1, $2, colocate_with := 'streams')`, [table, column]);
  }
  await q.query(`SELECT create_distributed_table('run_leases', 'run_id')`);
  await q.query(`SELECT create_distributed_table('live_streams', 'run_id', colocate_with := 'run_leases')`);
  for (const table of REFERENCE_TABLES) await q.query(`SELECT create_reference_table($1)`, [table]);
  // Only the routed append writes events on a cluster, each with its node's origin: any other insert fails.
  await q.query(`ALTER TABLE events ALTER COLUMN origin DROP DEFAULT`);
  // On every node: the routed append calls it where it runs.
  await q.query(`SELECT create_distributed_function('chronicle_chain_links(text, bigint, text[], text[])')`);
  await q.query(ROUTED_APPEND_FUNCTION);
  await q.query(`SELECT create_distributed_function($1, 'p_route', colocate_with := 'streams')`, [ROUTED_APPEND_SIGNATURE]);
}

export const SCALE_OUT_IRREVERSIBLE_ON_CITUS =
  'ScaleOut1764500007000 cannot be reverted on a Citus cluster: its per-node log positions and projection checkpoints have no one-server form (and Citus cannot undistribute events, whose global_position is an identity column). Nothing was changed. To go back to one PostgreSQL, export the store (chronicle export) and import it into a fresh one-server database.';
