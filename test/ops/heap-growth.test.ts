import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, heapGrowthFlag } from '../../src/ops/heap-growth.js';

describe("the JavaScript heap's growth (Starting and running it)", () => {
  it('is limited to 1.5 times what the last full collection kept when node is started without the flag', () => {
    expect(HEAP_GROWING_PERCENT).toBe(50);
    expect(heapGrowthFlag([])).toBe('--heap-growing-percent=50');
    expect(heapGrowthFlag(['--enable-source-maps', '--max-semi-space-size=2'])).toBe(
      '--heap-growing-percent=50',
    );
  });

  it("leaves the operator's own value on node's command line in force, in either spelling", () => {
    expect(heapGrowthFlag(['--heap-growing-percent=30'])).toBeNull();
    expect(heapGrowthFlag(['--heap-growing-percent', '30'])).toBeNull();
    expect(heapGrowthFlag(['--heap_growing_percent=30'])).toBeNull();
  });
});
