import pg from 'pg';

/** Runs `work` on one connection to `url`, then closes it. */
export async function onNode<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The port of the node that holds each stream's shard (the cluster's own metadata, read on `url`). */
export async function nodePortsOf(url: string, streamIds: readonly string[]): Promise<Map<string, number>> {
  return onNode(url, async (client) => {
    const result = await client.query<{ stream_id: string; port: number }>(
      `SELECT s.stream_id, n.nodeport AS port
         FROM unnest($1::text[]) AS s(stream_id)
         JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column('streams', s.stream_id)
         JOIN pg_dist_node n ON n.groupid = p.groupid`,
      [streamIds],
    );
    return new Map(result.rows.map((row) => [row.stream_id, Number(row.port)]));
  });
}

/** `count` session ids with the prefix whose streams live on the node at `port`. */
export async function sessionsOnNode(url: string, port: number, prefix: string, count: number): Promise<string[]> {
  const candidates = Array.from({ length: count * 8 + 16 }, (_, i) => `${prefix}-${i}`);
  const ports = await nodePortsOf(
    url,
    candidates.map((id) => `session-${id}`),
  );
  const found = candidates.filter((id) => ports.get(`session-${id}`) === port).slice(0, count);
  if (found.length < count) throw new Error(`only ${found.length} of ${count} sessions found on port ${port}`);
  return found;
}

export const portOf = (url: string): number => Number(new URL(url).port);
