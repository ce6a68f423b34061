import { randomBytes } from 'node:crypto';
import { keystoreUrlFor, MasterKeys, openKeyring, type SessionKeyring } from '#event-store';

/**
 * The master key (CHRONICLE_MASTER_KEY) of the apps and CLI runs one test file starts, unless a test sets its own:
 * one per file (jest loads a module once per test file), shared by its apps, replicas and CLI commands, as one
 * deployment's replicas share theirs.
 */
export const TEST_MASTER_KEY = randomBytes(32).toString('base64');

/** The keyring an app of this test file opens on `databaseUrl` (its key store `<database>_keys`), for specs that build the store themselves. */
export async function testKeyring(databaseUrl: string): Promise<SessionKeyring> {
  return openKeyring(keystoreUrlFor(databaseUrl), MasterKeys.parse(TEST_MASTER_KEY));
}
