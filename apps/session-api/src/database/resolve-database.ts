import { type ChronicleConfig, startEmbeddedDatabase, type SupervisorHooks } from '#platform';

export interface ResolvedDatabase {
  readonly url: string;
  readonly embedded: boolean;
  stop(): Promise<void>;
}

export interface ResolveOptions {
  readonly log: (message: string) => void;
  /** Given: the embedded server is restarted when it dies, and these hear of it (a DATABASE_URL server is its operator's). */
  readonly embeddedLifecycle?: SupervisorHooks;
}

/** DATABASE_URL → that server; unset → the embedded PostgreSQL kept in the data folder, restarted if it dies. */
export async function resolveDatabase(config: ChronicleConfig, options: ResolveOptions): Promise<ResolvedDatabase> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: false, stop: async () => undefined };
  const embedded = await startEmbeddedDatabase({ dataDir: config.dataDir, log: options.log, ...(options.embeddedLifecycle ? { supervise: options.embeddedLifecycle } : {}) });
  return { url: embedded.url, embedded: true, stop: () => embedded.stop() };
}
