import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The function as this migration creates it (a later migration derives its replacement from this text). */
export const APPEND_FUNCTION_1764500004000 = `
      CREATE FUNCTION chronicle_append_batch(
        p_streams text[], p_expected bigint[], p_counts int[],
        p_types text[], p_data text[], p_meta text[],
        p_key_counts int[], p_keys text[])
      RETURNS TABLE (item int, outcome text, version bigint, last_hash text, positions bigint[])
      LANGUAGE plpgsql AS $fn$
      DECLARE
        e int := 0;        -- events of earlier items
        k int := 0;        -- keys of earlier items
        n int;
        cur_v bigint;
        cur_h text;
        item_keys text[];
        versions bigint[];
        hashes text[];
      BEGIN
        FOR i IN 1 .. coalesce(array_length(p_streams, 1), 0) LOOP
          n := p_counts[i];
          item_keys := p_keys[k + 1 : k + p_key_counts[i]];
          k := k + p_key_counts[i];
          item := i;
          positions := NULL;
          last_hash := NULL;

          SELECT s.version, s.last_hash INTO cur_v, cur_h FROM streams s WHERE s.stream_id = p_streams[i] FOR UPDATE;
          IF NOT FOUND THEN
            IF p_expected[i] IS NOT NULL AND p_expected[i] <> 0 THEN
              outcome := 'conflict'; version := 0; RETURN NEXT; e := e + n; CONTINUE;
            END IF;
            IF cardinality(item_keys) > (SELECT count(DISTINCT x) FROM unnest(item_keys) x) THEN
              outcome := 'duplicate'; version := 0; RETURN NEXT; e := e + n; CONTINUE;
            END IF;
            -- A concurrent creator of the same stream makes this wait for its commit, then do nothing.
            INSERT INTO streams (stream_id, version, last_hash) VALUES (p_streams[i], 0, '') ON CONFLICT DO NOTHING;
            IF FOUND THEN
              cur_v := 0; cur_h := '';
            ELSE
              SELECT s.version, s.last_hash INTO cur_v, cur_h FROM streams s WHERE s.stream_id = p_streams[i] FOR UPDATE;
            END IF;
          END IF;

          IF p_expected[i] IS NOT NULL AND p_expected[i] <> cur_v THEN
            outcome := 'conflict'; version := cur_v; RETURN NEXT; e := e + n; CONTINUE;
          END IF;
          IF cardinality(item_keys) > 0 AND (
               EXISTS (SELECT 1 FROM idempotency_keys ik WHERE ik.stream_id = p_streams[i] AND ik.key = ANY (item_keys))
               OR cardinality(item_keys) > (SELECT count(DISTINCT x) FROM unnest(item_keys) x)) THEN
            outcome := 'duplicate'; version := cur_v; RETURN NEXT; e := e + n; CONTINUE;
          END IF;

          versions := '{}';
          hashes := '{}';
          FOR j IN 1 .. n LOOP
            cur_v := cur_v + 1;
            cur_h := encode(sha256(convert_to(
              cur_h || '{"data":' || p_data[e + j] || ',"type":' || to_json(p_types[e + j])::text
                    || ',"version":' || cur_v || '}', 'UTF8')), 'hex');
            versions := versions || cur_v;
            hashes := hashes || cur_h;
          END LOOP;
          WITH ins AS (
            INSERT INTO events (stream_id, version, type, data, metadata, hash)
            SELECT p_streams[i], t.v, t.type, t.data::jsonb, t.meta::jsonb, t.h
              FROM unnest(versions, p_types[e + 1 : e + n], p_data[e + 1 : e + n], p_meta[e + 1 : e + n], hashes)
                   AS t(v, type, data, meta, h)
            RETURNING events.version AS v, events.global_position AS gp)
          SELECT array_agg(ins.gp ORDER BY ins.v) INTO positions FROM ins;
          e := e + n;
          UPDATE streams SET version = cur_v, last_hash = cur_h, updated_at = now() WHERE stream_id = p_streams[i];
          IF cardinality(item_keys) > 0 THEN
            INSERT INTO idempotency_keys (stream_id, key, version) SELECT p_streams[i], x, cur_v FROM unnest(item_keys) x;
          END IF;
          outcome := 'ok'; version := cur_v; last_hash := cur_h;
          RETURN NEXT;
        END LOOP;
      END
      $fn$`;

/**
 * The append as one PL/pgSQL function over a batch of appends to many streams (the event store's group
 * commit sends one call per transaction). Each item keeps its own expected-version check, idempotency
 * keys and hash chain, and reports its own outcome as a row: a conflicting or duplicate item is skipped,
 * never raised, so it cannot abort the others. Items arrive sorted by stream id, so two batches lock
 * stream rows in the same order and cannot deadlock.
 *
 * The chain link is sha256(previous hash || '{"data":' || canonical data || ',"type":' || type ||
 * ',"version":' || version || '}'), the same string `chainHash` builds in TypeScript.
 */
export class AppendFunction1764500004000 implements MigrationInterface {
  name = 'AppendFunction1764500004000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(APPEND_FUNCTION_1764500004000);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION chronicle_append_batch(text[], bigint[], int[], text[], text[], text[], int[], text[])`);
  }
}
