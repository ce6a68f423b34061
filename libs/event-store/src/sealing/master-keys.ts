import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Key-encryption keys: the master key data keys are wrapped with (`CHRONICLE_MASTER_KEY`: 32 random bytes in
 * base64, e.g. `openssl rand -base64 32`), and the previous ones still accepted for unwrapping while a rotation
 * re-wraps (`CHRONICLE_MASTER_KEY_PREVIOUS`, comma separated). A master key is named by its id, the first 16 hex
 * digits of its sha256, so the key table says which master wraps each data key without holding the key.
 */
export interface MasterKey {
  readonly id: string;
  readonly key: Buffer;
}

export class MasterKeys {
  private readonly byId: ReadonlyMap<string, MasterKey>;

  constructor(
    readonly current: MasterKey,
    previous: readonly MasterKey[] = [],
  ) {
    this.byId = new Map([...previous, current].map((k) => [k.id, k]));
  }

  static parse(current: string, previous: readonly string[] = []): MasterKeys {
    return new MasterKeys(parseMasterKey(current), previous.map(parseMasterKey));
  }

  wrap(dataKey: Buffer, streamId: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(streamId));
    const body = Buffer.concat([cipher.update(dataKey), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  /** The data key, or an error naming the master key it needs when that one is not configured. */
  unwrap(wrapped: Buffer, masterId: string, streamId: string): Buffer {
    const master = this.byId.get(masterId);
    if (master === undefined) {
      throw new Error(`the data key of ${streamId} is wrapped by master key ${masterId}, which is not configured (CHRONICLE_MASTER_KEY or CHRONICLE_MASTER_KEY_PREVIOUS)`);
    }
    const decipher = createDecipheriv('aes-256-gcm', master.key, wrapped.subarray(0, 12));
    decipher.setAAD(Buffer.from(streamId));
    decipher.setAuthTag(wrapped.subarray(12, 28));
    return Buffer.concat([decipher.update(wrapped.subarray(28)), decipher.final()]);
  }
}

export function parseMasterKey(text: string): MasterKey {
  const trimmed = text.trim();
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== 32 || key.toString('base64') !== trimmed) {
    throw new Error('a master key is 32 bytes in base64 (44 characters, e.g. the output of `openssl rand -base64 32`)');
  }
  return { id: masterKeyIdOf(key), key };
}

export const masterKeyIdOf = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 16);

export const newMasterKeyText = (): string => randomBytes(32).toString('base64');
