import { limitHeapGrowth } from './heap-growth.js';

describe('limitHeapGrowth', () => {
  it("sets the factor unless node was given one (node's own flag wins, in either spelling)", () => {
    expect(limitHeapGrowth(100, ['--enable-source-maps'])).toBe(100);
    expect(limitHeapGrowth(100, ['--heap-growing-percent=40'])).toBeNull();
    expect(limitHeapGrowth(100, ['--heap_growing_percent=40'])).toBeNull();
    expect(limitHeapGrowth(100, ['--heap-growing-percent', '40'])).toBeNull();
  });

  it("leaves V8's own factor at 0", () => {
    expect(limitHeapGrowth(0, [])).toBeNull();
  });
});
