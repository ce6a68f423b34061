import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
// Not '#platform': its index loads the whole HTTP platform, which the CLI's and the audit's processes do not need.
import { redactUrl } from '#platform/urls';
import { MasterKeys, newMasterKeyText } from './master-keys.js';
import { type KeyringOptions, SessionKeyring } from './session-keyring.js';

/** Where the key table lives by default: the events' server, in a database of its own named `<database>_keys`. */
export function keystoreUrlFor(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, '')) || 'postgres';
  url.pathname = `/${encodeURIComponent(`${name}_keys`)}`;
  return url.toString();
}

const quoteIdentifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * The key store's database, made when it does not exist yet (the role needs CREATEDB for that; otherwise
 * create it once by hand, or point CHRONICLE_KEYSTORE_URL at one), with its one table.
 */
export async function openKeyring(
  url: string,
  masters: MasterKeys,
  options: KeyringOptions & { poolSize?: number; connectTimeoutMs?: number; queryTimeoutMs?: number } = {},
): Promise<SessionKeyring> {
  await ensureDatabase(url);
  // A connection that cannot be made in time, or a lookup unanswered, fails (the write answers 503) instead of holding it.
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 4,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 0,
    query_timeout: options.queryTimeoutMs || undefined,
  });
  // An idle client's error (a server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const keyring = new SessionKeyring(pool, masters, options);
  try {
    await keyring.ensureSchema();
  } catch (error) {
    await pool.end();
    throw error;
  }
  return keyring;
}

async function ensureDatabase(url: string): Promise<void> {
  const probe = new pg.Client({ connectionString: url });
  try {
    await probe.connect();
    return;
  } catch (error) {
    // 3D000: invalid_catalog_name, the database does not exist.
    if ((error as { code?: string }).code !== '3D000') throw error;
  } finally {
    await probe.end().catch(() => undefined);
  }
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  target.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: target.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
  } catch (error) {
    // 42P04: duplicate_database, another replica made it first.
    if ((error as { code?: string }).code !== '42P04') {
      throw new Error(`the key store database ${name} does not exist and could not be created (${(error as Error).message}): create it, or set CHRONICLE_KEYSTORE_URL`, { cause: error });
    }
  } finally {
    await admin.end();
  }
}

export interface MasterKeySettings {
  readonly masterKey?: string | undefined;
  readonly previousMasterKeys?: readonly string[];
  readonly dataDir: string;
}

/**
 * The master keys from the settings, or — none set — the one kept in the data folder (`master-key`, made on the
 * first start, as the admin API key is). `generated` names that file when this call made it.
 */
export function resolveMasterKeys(settings: MasterKeySettings): { readonly masters: MasterKeys; readonly keyFile: string | null; readonly generated: boolean } {
  const previous = settings.previousMasterKeys ?? [];
  if (settings.masterKey) return { masters: MasterKeys.parse(settings.masterKey, previous), keyFile: null, generated: false };
  const keyFile = join(resolve(settings.dataDir), 'master-key');
  if (existsSync(keyFile)) return { masters: MasterKeys.parse(readFileSync(keyFile, 'utf8'), previous), keyFile, generated: false };
  mkdirSync(resolve(settings.dataDir), { recursive: true });
  try {
    writeFileSync(keyFile, `${newMasterKeyText()}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process made it between the check and the write: use theirs.
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
    return { masters: MasterKeys.parse(readFileSync(keyFile, 'utf8'), previous), keyFile, generated: false };
  }
  return { masters: MasterKeys.parse(readFileSync(keyFile, 'utf8'), previous), keyFile, generated: true };
}

export interface SealingSettings extends MasterKeySettings {
  readonly encryption: boolean;
  readonly keystoreUrl?: string | undefined;
  /** The bounds on making a key store connection and on a lookup's answer (`CHRONICLE_DB_…_TIMEOUT_MS`); unset or 0: none. */
  readonly dbConnectTimeoutMs?: number;
  readonly dbQueryTimeoutMs?: number;
}

/** The key store could not be opened: the message names it (its URL without the password) and where the URL came from. */
export class KeyStoreError extends Error {
  override readonly name = 'KeyStoreError';
}

/**
 * The keyring the settings ask for (the service's and the CLI's): null when content is stored plain. A key store
 * that cannot be opened is a `KeyStoreError` naming it (a bare "connect ECONNREFUSED" named neither).
 */
export async function keyringFromSettings(settings: SealingSettings, databaseUrl: string): Promise<SessionKeyring | null> {
  if (!settings.encryption) return null;
  const { masters } = resolveMasterKeys(settings);
  const url = settings.keystoreUrl ?? keystoreUrlFor(databaseUrl);
  try {
    return await openKeyring(url, masters, { connectTimeoutMs: settings.dbConnectTimeoutMs, queryTimeoutMs: settings.dbQueryTimeoutMs });
  } catch (error) {
    const from = settings.keystoreUrl ? 'CHRONICLE_KEYSTORE_URL' : "the default, beside the events' database";
    throw new KeyStoreError(`the key store at ${redactUrl(url)} (${from}) could not be opened: ${(error as Error).message}`, { cause: error });
  }
}
