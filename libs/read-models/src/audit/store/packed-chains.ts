import { ChainFollower, type StreamHeadLink } from '../chain-verification.js';
import { type AuditBatch, DATA_SLICE, type StreamPart } from './audit-batch.processor.js';
import { EventTypes, PackedLines } from './packed-events.format.js';

/** Events hashed between two yields to the event loop (~1–2 ms of work). */
const YIELD_EVERY = 512;

interface OpenChain {
  readonly follower: ChainFollower;
  readonly head: StreamHeadLink;
}

/**
 * The whole-store audit's reading thread turns each packed text into a fold lane's batch (`AuditBatch`) and
 * follows the hash chains on the way: the chain needs the stored texts as they are, the fold needs them parsed,
 * and the two then run on two cores. A stream longer than a batch keeps its follower from one batch to the next.
 */
export class PackedChains {
  private readonly open = new Map<string, OpenChain>();
  private readonly types = new EventTypes();

  /**
   * The batch of `parts` whose events `texts` pack (in order, a line's part never lower than the line's before),
   * each ending part with its chain's verdict. It yields to the event loop every `YIELD_EVERY` events: the audit
   * may run inside the service, whose requests must not wait for a whole batch's hashing (~10–25 ms for 5,000
   * events on this machine).
   */
  async toBatch(id: number, parts: readonly StreamPart[], texts: readonly string[]): Promise<AuditBatch> {
    const chains = parts.map((part) => this.chainOf(part));
    const counts = new Array<number>(parts.length).fill(0);
    const typeIds = new Map<string, number>();
    const typeNames: string[] = [];
    const types: number[] = [];
    const schemas: number[] = [];
    const data: string[] = [];
    let slice: string[] = [];
    let part = 0;
    let read = 0;
    for (const text of texts) {
      const lines = new PackedLines(text, parts.length, this.types);
      while (lines.next()) {
        if ((read += 1) % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
        if (lines.part < part) throw new Error('audit: packed lines out of part order');
        part = lines.part;
        const type = lines.type;
        const stored = lines.data;
        chains[part].follower.pushStored(lines.eventVersion, type, lines.hash, stored);
        counts[part] += 1;
        let typeId = typeIds.get(type);
        if (typeId === undefined) typeIds.set(type, (typeId = typeNames.push(type) - 1));
        types.push(typeId);
        schemas.push(lines.schema);
        slice.push(stored);
        if (slice.length === DATA_SLICE) {
          data.push(`[${slice.join(',')}]`);
          slice = [];
        }
      }
    }
    if (slice.length > 0) data.push(`[${slice.join(',')}]`);
    const chained = parts.map((p, i) => {
      if (!p.end) return p;
      this.open.delete(p.sessionId);
      return { ...p, chain: chains[i].follower.verdict(chains[i].head) };
    });
    return {
      id,
      parts: chained,
      counts,
      types: typeNames.length <= 0xffff ? Uint16Array.from(types) : Uint32Array.from(types),
      typeNames,
      schemas: Uint16Array.from(schemas),
      data,
    };
  }

  private chainOf(part: StreamPart): OpenChain {
    if (part.begin) {
      const chain = { follower: new ChainFollower(), head: part.begin.head };
      if (!part.end) this.open.set(part.sessionId, chain);
      return chain;
    }
    const chain = this.open.get(part.sessionId);
    if (!chain) throw new Error(`audit: a later part of ${part.sessionId} came before its first`);
    return chain;
  }
}
