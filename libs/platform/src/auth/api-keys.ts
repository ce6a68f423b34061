import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export type Scope = 'ingest' | 'read' | 'admin';
const SCOPES: readonly Scope[] = ['ingest', 'read', 'admin'];

export interface ApiKey {
  readonly key: string;
  readonly scopes: ReadonlySet<Scope>;
  /** This key's own rate limit (`@N`): requests per minute, 0 = none; unset = the default limit. */
  readonly rateLimitPerMinute?: number;
}

/** Requests per minute, as CHRONICLE_RATE_LIMIT_PER_MINUTE and `@N` spell it (up to 9 digits). */
export const RATE_LIMIT_PATTERN = /^\d{1,9}$/;

/** Names an entry in an error without printing the secret. */
const entryName = (entry: string) => `"${entry.slice(0, 4)}…"`;

function parseRateLimit(entry: string, text: string): number {
  if (!RATE_LIMIT_PATTERN.test(text)) {
    throw new Error(
      `CHRONICLE_API_KEYS entry ${entryName(entry)}: rate limit "@${text}" must be a whole number of requests per minute (0 = no limit)`,
    );
  }
  return Number(text);
}

/**
 * Parses `key:scope1+scope2,key2:scope`, each entry optionally ending in `@N`, that key's own rate limit
 * in requests per minute (`@0` = none, whatever the default). A malformed entry is a startup error,
 * never a silent open door.
 */
export function parseApiKeys(spec: string): ApiKey[] {
  return spec
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => {
      const at = entry.lastIndexOf(':');
      if (at <= 0) throw new Error(`CHRONICLE_API_KEYS entry ${entryName(entry)} needs the form key:scope1+scope2[@limit]`);
      const key = entry.slice(0, at);
      const [scopeList, limit, ...rest] = entry.slice(at + 1).split('@');
      if (rest.length > 0) throw new Error(`CHRONICLE_API_KEYS entry ${entryName(entry)} has more than one "@limit"`);
      const scopes = scopeList.split('+');
      for (const scope of scopes) {
        if (!SCOPES.includes(scope as Scope)) {
          throw new Error(`CHRONICLE_API_KEYS: unknown scope "${scope}" (use ${SCOPES.join(', ')})`);
        }
      }
      return {
        key,
        scopes: new Set(scopes as Scope[]),
        ...(limit === undefined ? {} : { rateLimitPerMinute: parseRateLimit(entry, limit) }),
      };
    });
}

/** `admin` implies the other two scopes. */
export function allows(key: ApiKey, scope: Scope): boolean {
  return key.scopes.has('admin') || key.scopes.has(scope);
}

export interface KeyResolution {
  readonly keys: ApiKey[];
  /** Set only on the first start without configured keys: the new key, to be printed once. */
  readonly generated: string | null;
  readonly keyFile: string | null;
}

/**
 * Configured keys, or the admin key kept in the data folder; on the first start without either a
 * key is generated and stored (0600). The service never runs open.
 */
export function resolveApiKeys(spec: string | undefined, dataDir: string): KeyResolution {
  if (spec && spec.trim()) return { keys: parseApiKeys(spec), generated: null, keyFile: null };
  const keyFile = join(resolve(dataDir), 'admin-api-key');
  if (existsSync(keyFile)) {
    const key = readFileSync(keyFile, 'utf8').trim();
    return { keys: [{ key, scopes: new Set<Scope>(['admin']) }], generated: null, keyFile };
  }
  mkdirSync(resolve(dataDir), { recursive: true });
  const key = `chr_${randomBytes(24).toString('base64url')}`;
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  return { keys: [{ key, scopes: new Set<Scope>(['admin']) }], generated: key, keyFile };
}

const digest = (value: string): Buffer => hash('sha256', value, 'buffer');

/** The configured keys' digests, computed once per key (keys never change while the process runs). */
const keyDigests = new WeakMap<ApiKey, Buffer>();
function digestOf(key: ApiKey): Buffer {
  let value = keyDigests.get(key);
  if (value === undefined) {
    value = digest(key.key);
    keyDigests.set(key, value);
  }
  return value;
}

/** Constant-time lookup of a presented bearer token: every candidate is compared, digests of equal length. */
export function findKey(keys: readonly ApiKey[], presented: string): ApiKey | null {
  const presentedDigest = digest(presented);
  let found: ApiKey | null = null;
  for (const candidate of keys) {
    if (timingSafeEqual(digestOf(candidate), presentedDigest)) found = candidate;
  }
  return found;
}
