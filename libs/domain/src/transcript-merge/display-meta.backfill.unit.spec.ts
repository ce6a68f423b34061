import type { MessageRow } from '../messages/message-row.js';
import { backfillMeta } from './display-meta.backfill.js';

/** A row from JSON text: a `__proto__` key in an object literal would set the prototype instead. */
const row = (json: string) => JSON.parse(json) as MessageRow;

describe('the display metadata a dropped duplicate brings (R13)', () => {
  it('copies a __proto__ and a constructor key as data, as any other key (issue 27)', () => {
    const kept = row('{"role":"assistant","content":"a","meta":{"turnTps":3}}');
    const dropped = row('{"role":"assistant","content":"a","meta":{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"turnTps":9}}');
    const merged = backfillMeta(kept, dropped);
    expect(JSON.stringify(merged.meta)).toBe('{"turnTps":3,"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}');
    expect(Object.getPrototypeOf(merged.meta)).toBe(Object.prototype);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("keeps the kept row's own __proto__ and constructor values, and fills them when empty", () => {
    const kept = row('{"role":"user","meta":{"__proto__":"mine","constructor":""}}');
    const dropped = row('{"role":"user","meta":{"__proto__":"theirs","constructor":"theirs"}}');
    expect(JSON.stringify(backfillMeta(kept, dropped).meta)).toBe('{"__proto__":"mine","constructor":"theirs"}');
  });

  it('answers the kept row itself when there is nothing to add', () => {
    const kept = row('{"role":"user","meta":{"turnTps":3}}');
    expect(backfillMeta(kept, row('{"role":"user","meta":{"turnTps":4,"empty":""}}'))).toBe(kept);
  });
});
