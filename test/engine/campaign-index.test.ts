import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBasketState } from '../../src/engine/basket-state.js';
import { buildCampaignIndex, partitionsFor } from '../../src/engine/campaign-index.js';
import { findCandidatePairs } from '../../src/engine/candidate-keys.js';
import { basket, campaign, pos, run } from './fixtures.js';
import type { Campaign } from '../../src/engine/types.js';

const off = { kind: 'amount', minor: 10 } as const;

describe('campaign index', () => {
  const cs: Campaign[] = [
    campaign({
      id: 1,
      type: 'product',
      discount: off,
      products: [{ plu: 'A' }, { group: 'G' }, { plu: 'A' }],
      maxApplications: 1,
    }),
    campaign({ id: 2, type: 'product', discount: off, products: [], maxApplications: 1 }),
    campaign({ id: 3, type: 'bill', discount: off }),
    campaign({
      id: 4,
      type: 'product',
      discount: off,
      products: [{ plu: 'A' }],
      couponCode: 'SUMMER',
      maxApplications: 1,
    }),
    campaign({ id: 5, type: 'product', discount: off, products: [{ plu: 'A' }], outletIds: [7, 8, 7] }),
    campaign({
      id: 6,
      type: 'combination',
      discount: off,
      combination: [
        { selector: { plu: 'B' }, quantity: 1 },
        { selector: { group: 'H' }, quantity: 1 },
      ],
    }),
    campaign({ id: 7, type: 'combination', discount: off, combination: [] }),
    campaign({
      id: 8,
      type: 'product',
      discount: off,
      products: [{ plu: 'A' }],
      priority: 5,
      maxApplications: 1,
    }),
  ];
  const index = buildCampaignIndex(cs);
  const ids = (list: readonly { campaign: Campaign }[] | undefined): number[] =>
    (list ?? []).map((e) => e.campaign.id);

  it('indexes product-level campaigns by every PLU and group they name, once each, in processing order', () => {
    expect(ids(index.everywhere.byPlu.get('A'))).toEqual([8, 1]);
    expect(ids(index.everywhere.byGroup.get('G'))).toEqual([1]);
    expect(ids(index.everywhere.byPlu.get('B'))).toEqual([6]);
    expect(ids(index.everywhere.byGroup.get('H'))).toEqual([6]);
  });

  it('keeps campaigns without selector and bill campaigns apart, and drops a combination without parts', () => {
    expect(ids(index.everywhere.everyArticle)).toEqual([2]);
    expect(ids(index.everywhere.bill)).toEqual([3]);
    expect(index.size).toBe(8);
    const everywhere = [...index.everywhere.byPlu.values(), ...index.everywhere.byGroup.values()].flat();
    expect(everywhere.some((e) => e.campaign.id === 7)).toBe(false);
  });

  it('puts coupon campaigns under their code and outlet campaigns under each outlet', () => {
    expect(ids(index.byCoupon.get('SUMMER')?.byPlu.get('A'))).toEqual([4]);
    expect(ids(index.byOutlet.get(7)?.byPlu.get('A'))).toEqual([5]);
    expect(ids(index.byOutlet.get(8)?.byPlu.get('A'))).toEqual([5]);
    expect(partitionsFor(index, 7, ['SUMMER', 'SUMMER', 'OTHER'])).toHaveLength(3);
    expect(partitionsFor(index, null, [])).toHaveLength(1);
  });

  it('a basket sees campaigns of its outlet and its coupon codes only', () => {
    const b = (outletId: number, couponCodes: string[]) =>
      basket([pos(1, 'A', 100, 5)], { outletId, couponCodes });
    const applied = (outletId: number, codes: string[]) =>
      run(cs, b(outletId, codes)).couponUsages.map((u) => u.campaignId);
    expect(applied(1, [])).toEqual([8, 1, 2, 3]);
    expect(applied(7, ['SUMMER'])).toEqual([8, 1, 2, 4, 5, 3]);
  });

  it('with explain, campaigns of other outlets and unpresented coupon codes are explained too', () => {
    const r = run(cs, basket([pos(1, 'A', 100, 1)], { outletId: 1 }), { explain: true });
    expect(r.explanations.map((e) => [e.campaignId, e.reason])).toEqual([
      [8, 'applied'],
      [1, 'no qualifying units left'],
      [2, 'no qualifying units left'],
      [4, 'coupon code not presented'],
      [5, 'outlet not included'],
      [3, 'applied'],
    ]);
  });
});

describe('engine purity (STYLE: the engine imports no framework, no node: module and reads no clock)', () => {
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
    });
  const sources = files('src/engine').map((f) => [f, readFileSync(f, 'utf8')] as const);

  it.each(sources)('%s imports only engine and shared money/prorate modules', (file, text) => {
    const imports = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1] ?? '');
    for (const spec of imports) {
      const target = join(dirname(file), spec);
      const allowed =
        target.startsWith(join('src', 'engine')) ||
        target === join('src', 'shared', 'money.js') ||
        target === join('src', 'shared', 'prorate.js');
      expect(allowed ? 'allowed' : spec).toBe('allowed');
    }
  });

  it.each(sources)('%s reads no clock', (_file, text) => {
    expect(text).not.toMatch(/Date\.now\(|new Date\(\)|performance\.now\(|process\./);
  });
});

describe('candidate pairs (campaign, position) of a basket', () => {
  const cs: Campaign[] = [
    campaign({ id: 1, type: 'product', discount: off, products: [{ plu: 'A' }, { group: 'G' }] }),
    campaign({ id: 2, type: 'quantity', discount: off, products: [{ group: 'G' }], outletIds: [7] }),
    campaign({ id: 3, type: 'product', discount: off, products: [], couponCode: 'SUMMER' }),
    campaign({
      id: 4,
      type: 'combination',
      discount: off,
      combination: [
        { selector: { group: 'G' }, quantity: 1 },
        { selector: { plu: 'B' }, quantity: 1 },
      ],
    }),
    campaign({ id: 5, type: 'product', discount: off, products: [{ plu: 'A' }], outletIds: [8] }),
  ];
  const index = buildCampaignIndex(cs);
  const lines = createBasketState(
    basket([
      pos(1, 'A', 100, 1, { groupIds: ['G'] }),
      pos(2, 'B', 100),
      pos(3, 'C', 100, 1, { groupIds: ['G'] }),
    ]),
  ).lines;
  const pairsOf = (outletId: number | null, codes: string[], smallLimit?: number) => {
    const { pairs, count } = findCandidatePairs(index.keys, lines, outletId, codes, smallLimit);
    return [...pairs.subarray(0, count)].map((v) => {
      const rank = Math.floor(v / lines.length);
      return [index.entries[rank]?.id, lines[v - rank * lines.length]?.position.positionId ?? 0];
    });
  };

  it('lists each campaign the basket can see with each line naming it, in processing order, a combination by its PLU part', () => {
    expect(pairsOf(7, ['SUMMER'])).toEqual([
      [1, 1],
      [1, 1],
      [1, 3],
      [2, 1],
      [2, 3],
      [3, 1],
      [3, 2],
      [3, 3],
      [4, 2],
    ]);
    expect(pairsOf(8, [])).toEqual([
      [1, 1],
      [1, 1],
      [1, 3],
      [4, 2],
      [5, 1],
    ]);
  });

  it('gives the same pairs when there are too many to count in 32 bits', () => {
    for (const [outletId, codes] of [
      [7, ['SUMMER']],
      [8, []],
      [null, ['SUMMER', 'SUMMER']],
    ] as const) {
      expect(pairsOf(outletId, [...codes], 0)).toEqual(pairsOf(outletId, [...codes]));
    }
  });
});
