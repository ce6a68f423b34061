import { canonicalJson, sha256Hex } from '#domain/replay';

/**
 * Hash chain link of one event: sha256(previous hash || canonical JSON of { data, type, version }). The
 * PostgreSQL store computes the same string in SQL (the keys data < type < version are already in canonical
 * order) when it does not know a stream's head, so both stores agree byte for byte.
 */
export function chainHash(previousHash: string, version: number, type: string, data: unknown): string {
  return chainLink(previousHash, version, type, canonicalJson(data));
}

/** Event types are a small closed set: each one's JSON is written once. */
const typeJson = new Map<string, string>();
function jsonOfType(type: string): string {
  let json = typeJson.get(type);
  if (json === undefined) {
    json = canonicalJson(type);
    if (typeJson.size < 1024) typeJson.set(type, json);
  }
  return json;
}

/** `chainHash` for data already in canonical JSON (the text the store sends and stores). */
export function chainLink(previousHash: string, version: number, type: string, canonicalData: string): string {
  return sha256Hex(`${previousHash}{"data":${canonicalData},"type":${jsonOfType(type)},"version":${version}}`);
}
