import { canonicalJson, sha256Hex } from '#domain';

/**
 * Hash chain link of one event: sha256(previous hash || canonical JSON of { data, type, version }). The
 * PostgreSQL store computes the same string in SQL (the keys data < type < version are already in canonical
 * order) when it does not know a stream's head, so both stores agree byte for byte.
 */
export function chainHash(previousHash: string, version: number, type: string, data: unknown): string {
  return chainLink(previousHash, version, type, canonicalJson(data));
}

/** `chainHash` for data already in canonical JSON (the text the store sends and stores). */
export function chainLink(previousHash: string, version: number, type: string, canonicalData: string): string {
  return sha256Hex(`${previousHash}{"data":${canonicalData},"type":${canonicalJson(type)},"version":${version}}`);
}
