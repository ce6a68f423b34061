import { type ChronicleConfig, startEmbeddedDatabase } from '#platform';

export interface ResolvedDatabase {
  readonly url: string;
  readonly embedded: boolean;
  stop(): Promise<void>;
}

/** DATABASE_URL → that server; unset → the embedded PostgreSQL kept in the data folder. */
export async function resolveDatabase(config: ChronicleConfig, log: (message: string) => void): Promise<ResolvedDatabase> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: false, stop: async () => undefined };
  const embedded = await startEmbeddedDatabase({ dataDir: config.dataDir, log });
  return { url: embedded.url, embedded: true, stop: () => embedded.stop() };
}
