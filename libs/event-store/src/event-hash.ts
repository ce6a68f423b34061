import { canonicalJson, sha256Hex } from '#domain';

/**
 * Hash chain link of one event. The PostgreSQL store computes the same string in SQL (the keys
 * data < type < version are already in canonical order), so both stores agree byte for byte.
 */
export function chainHash(previousHash: string, version: number, type: string, data: unknown): string {
  return sha256Hex(previousHash + canonicalJson({ data, type, version }));
}
