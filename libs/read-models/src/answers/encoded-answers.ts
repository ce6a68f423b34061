import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { ByteBoundedCache } from './byte-bounded.cache.js';

export type ContentCoding = 'br' | 'gzip' | 'identity';

/** One serialised answer and the compressed forms asked for so far. */
export interface EncodedAnswer {
  readonly etag: string;
  readonly identity: Buffer;
  readonly br?: Buffer;
  readonly gzip?: Buffer;
}

/** Below this size compression costs more than it saves on the wire. */
const COMPRESS_MIN_BYTES = 1024;

/**
 * `Accept-Encoding` → the coding to send: brotli, then gzip, when the client accepts it with a non-zero
 * q-value (RFC 9110 §12.5.3); identity otherwise.
 */
export function chooseCoding(acceptEncoding: string | undefined, bytes: number): ContentCoding {
  if (!acceptEncoding || bytes < COMPRESS_MIN_BYTES) return 'identity';
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    accepted.set(name, q ? Number(q.slice(2)) : 1);
  }
  const ok = (coding: string) => (accepted.get(coding) ?? accepted.get('*') ?? 0) > 0;
  if (ok('br')) return 'br';
  if (ok('gzip')) return 'gzip';
  return 'identity';
}

/**
 * Serialised answers by key (session, version, view, …): serialised once however many clients read them, and
 * compressed once per coding. Bounded in bytes (every form counted); `onSize` feeds a gauge.
 */
export class EncodedAnswers {
  private readonly cache: ByteBoundedCache<string, EncodedAnswer>;

  constructor(maxBytes: number, onSize?: (bytes: number) => void) {
    this.cache = new ByteBoundedCache(maxBytes, onSize);
  }

  /** The answer under `key`, built by `build` (a body to serialise, or its JSON) when it is not cached. */
  /** Drops every answer of the session (keys `<session>@<version>/…`): its content is erased. */
  forgetSession(sessionId: string): void {
    this.cache.deleteWhere((key) => key.startsWith(`${sessionId}@`));
  }

  get(key: string, build: () => { etag: string; body: unknown } | { etag: string; json: string }): EncodedAnswer {
    const cached = this.cache.get(key);
    if (cached) return cached;
    const built = build();
    const json = 'json' in built ? built.json : JSON.stringify(built.body);
    const answer: EncodedAnswer = { etag: built.etag, identity: Buffer.from(json) };
    this.cache.set(key, answer, answer.identity.length);
    return answer;
  }

  /** The bytes to send in `coding`, compressing (and caching) on first use. */
  encode(key: string, answer: EncodedAnswer, coding: ContentCoding): Buffer {
    if (coding === 'identity') return answer.identity;
    const existing = answer[coding];
    if (existing) return existing;
    const bytes =
      coding === 'br'
        ? brotliCompressSync(answer.identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } })
        : gzipSync(answer.identity, { level: 6 });
    const updated: EncodedAnswer = { ...answer, [coding]: bytes };
    const size = updated.identity.length + (updated.br?.length ?? 0) + (updated.gzip?.length ?? 0);
    this.cache.resize(key, updated, size);
    return bytes;
  }

  get bytes(): number {
    return this.cache.bytes;
  }
}
